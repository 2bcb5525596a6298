import Foundation
import Locking
import NIOSSL

/// The PEM files HTTPS is served with (`--tls-cert`, `--tls-key`).
public struct TLSFiles: Sendable, Equatable {
    /// The certificate chain: the server's certificate first, then its intermediates.
    public var certificate: String
    /// The certificate's private key.
    public var key: String

    public init(certificate: String, key: String) {
        (self.certificate, self.key) = (certificate, key)
    }
}

/// The server's certificate and key, read from their PEM files, as the TLS context each new
/// connection gets. `reload()` reads the files again, so a renewed certificate is served without a
/// restart; connections already open keep the context they started with. A reload that fails
/// (a file half written, a key that does not match) keeps the context in use.
///
/// Lock order: a leaf (a context is built before the lock is taken).
package final class CertificateStore: Sendable {
    package let files: TLSFiles
    private let context: Locked<NIOSSLContext>

    /// Reads the files; throws why they cannot be served.
    package init(files: TLSFiles) throws(TLSSetupError) {
        self.files = files
        context = Locked(try Self.makeContext(files))
    }

    /// The context a connection accepted now gets.
    var current: NIOSSLContext { context.withLock { $0 } }

    /// Reads the files again and serves them to new connections; on failure the old ones stay.
    package func reload() throws(TLSSetupError) {
        let fresh = try Self.makeContext(files)
        context.withLock { $0 = fresh }
    }

    /// TLS 1.2 or later, ALPN `h2` then `http/1.1`, the chain and key from `files`.
    static func makeContext(_ files: TLSFiles) throws(TLSSetupError) -> NIOSSLContext {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(files.certificate)
        } catch {
            throw .certificate(files.certificate, "\(error)")
        }
        guard !chain.isEmpty else { throw .certificate(files.certificate, "no PEM certificate in the file") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: files.key, format: .pem)
        } catch {
            throw .key(files.key, "\(error)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["h2", "http/1.1"]
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch NIOSSLError.failedToLoadPrivateKey {
            // BoringSSL checks the key against the certificate's public key here.
            throw .mismatch(files.certificate, files.key)
        } catch {
            throw .context("\(error)")
        }
    }
}

/// Why the TLS files cannot be served.
public enum TLSSetupError: Error, Sendable, CustomStringConvertible {
    case certificate(String, String)
    case key(String, String)
    case mismatch(String, String)
    case context(String)

    public var description: String {
        switch self {
        case .certificate(let path, let reason): "cannot read the TLS certificate \(path): \(reason)"
        case .key(let path, let reason): "cannot read the TLS key \(path): \(reason)"
        case .mismatch(let certificate, let key): "the TLS key \(key) is not the key of the certificate \(certificate)"
        case .context(let reason): "cannot set up TLS: \(reason)"
        }
    }
}
