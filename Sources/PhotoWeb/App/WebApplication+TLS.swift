import Hummingbird
import HummingbirdCore
import Logging
public import NIOCore
public import ServiceLifecycle
import PhotoTransport

extension WebApplication {
    /// The server's channel: HTTPS (HTTP/2 and HTTP/1.1 by ALPN) with `certificates`, else plain
    /// HTTP/1.1; what `ready` has ready is answered on the event loop.
    static func serverBuilder(
        _ limits: GuardedHTTP1Channel.Limits, configuration: WebConfiguration, certificates: CertificateStore?,
        ready: any ReadyResponding
    ) -> HTTPServerBuilder {
        guard let certificates else { return GuardedHTTP1Channel.builder(limits, ready: ready) }
        return SecureHTTPChannel.builder(
            limits, maxConcurrentStreams: configuration.maxStreams, streamsPerClient: configuration.effectiveStreamsPerClient,
            certificates: certificates, ready: ready)
    }

    /// Reads the TLS files (off the threads requests run on), or nil without TLS.
    static func loadCertificates(_ configuration: WebConfiguration) async throws(ApplicationError) -> CertificateStore? {
        guard let files = configuration.tls else { return nil }
        do {
            return try await Blocking.run { try CertificateStore(files: files) }
        } catch {
            throw ApplicationError.setting("\(error)")
        }
    }

    /// With TLS and `--http-redirect-port`: the plain-HTTP server, behind the same connection guards,
    /// that answers every request with a redirect to HTTPS on `httpsPort`; nil otherwise.
    public func redirect(httpsPort: Int, onServerRunning: @escaping @Sendable (any Channel) async -> Void) -> (any Service)? {
        guard configuration.tls != nil, let redirectPort = configuration.httpRedirectPort else { return nil }
        return Hummingbird.Application(
            responder: HTTPSRedirect(httpsPort: httpsPort),
            server: GuardedHTTP1Channel.builder(limits),
            configuration: .init(address: .hostname(configuration.host, port: Int(redirectPort)), serverName: nil),
            onServerRunning: onServerRunning,
            logger: Self.quieter(logger))
    }

    /// Reads the certificate and key files again: connections from now on get them. On failure the
    /// ones in use stay, and the error says why.
    public func reloadCertificates() async throws(ApplicationError) {
        guard let certificates else { throw ApplicationError.setting("the server does not serve TLS: nothing to reload") }
        do {
            try await Blocking.run { try certificates.reload() }
        } catch {
            context.logger.error("TLS certificate not reloaded: the one in use stays", metadata: ["reason": "\(error)"])
            throw ApplicationError.setting("\(error)")
        }
        context.logger.info("TLS certificate reloaded", metadata: ["certificate": "\(certificates.files.certificate)"])
    }
}
