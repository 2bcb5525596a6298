import Foundation
@testable import PhotoWeb
import Testing
import PhotoServer
@testable import PhotoTransport

/// The server started with `--tls-cert` / `--tls-key`: HTTPS with HTTP/2 and HTTP/1.1 (asked with
/// curl, a client of its own), Strict-Transport-Security, clear errors for unusable files, reload.
@Suite("TLS server", .serialized)
struct TLSServerTests {
    let folder = NSTemporaryDirectory() + "classic-photos-tls-" + UUID().uuidString

    /// `curl -k` on `path`: the HTTP version, the status and the response's headers.
    func curl(_ port: UInt16, _ path: String, _ version: String) async throws -> (version: String, status: String, headers: String) {
        let headers = folder + "/headers-\(UUID().uuidString)"
        let out = try await TestCertificates.run("/usr/bin/curl", [
            "-sk", version, "-o", "/dev/null", "-D", headers, "-w", "%{http_version} %{http_code}",
            "https://127.0.0.1:\(port)\(path)",
        ]).split(separator: " ").map(String.init)
        return (out[0], out[1], try String(contentsOfFile: headers, encoding: .utf8).lowercased())
    }

    @Test func servesHTTP2AndHTTP11OverTLSWithStrictTransportSecurity() async throws {
        let files = try await TestCertificates.make("server", in: folder)
        try await WebHarness.with(configure: { $0.web.tls = files }) { harness in
            let port = harness.application.port
            let h2 = try await curl(port, "/healthz", "--http2")
            #expect(h2.version == "2" && h2.status == "200")
            #expect(h2.headers.contains("strict-transport-security: max-age=31536000"))
            let h1 = try await curl(port, "/api/photos", "--http1.1")
            #expect(h1.version == "1.1" && h1.status == "200")
            #expect(h1.headers.contains("strict-transport-security: max-age=31536000"))
        }
    }

    @Test func unusableFilesStopTheStartWithTheirPath() async throws {
        let files = try await TestCertificates.make("server", in: folder)
        let missing = TLSFiles(certificate: folder + "/nowhere.pem", key: files.key)
        let garbage = folder + "/garbage.pem"
        try Data("not PEM".utf8).write(to: URL(fileURLWithPath: garbage))
        for (broken, named) in [(missing, missing.certificate), (TLSFiles(certificate: files.certificate, key: garbage), garbage)] {
            await #expect {
                try await WebHarness.with(configure: { $0.web.tls = broken }) { _ in }
            } throws: { error in
                "\(error)".contains(named)
            }
        }
    }

    @Test func reloadServesNewFilesAndKeepsTheOldOnesWhenTheNewAreBroken() async throws {
        let files = try await TestCertificates.make("first", in: folder)
        let store = try CertificateStore(files: files)
        let first = store.current
        let second = try await TestCertificates.make("second", in: folder)
        try FileManager.default.removeItem(atPath: files.certificate)
        try FileManager.default.copyItem(atPath: second.certificate, toPath: files.certificate)
        try FileManager.default.removeItem(atPath: files.key)
        try FileManager.default.copyItem(atPath: second.key, toPath: files.key)
        try store.reload()
        let reloaded = store.current
        #expect(reloaded !== first)

        try Data("-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n".utf8).write(to: URL(fileURLWithPath: files.certificate))
        #expect(throws: TLSSetupError.self) { try store.reload() }
        #expect(store.current === reloaded)
    }
}
