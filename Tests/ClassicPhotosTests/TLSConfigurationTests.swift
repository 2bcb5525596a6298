@testable import ClassicPhotos
import PhotoWeb
import Testing
import ArgumentParser
import SampleOrigin
import PhotoServer
import PhotoTransport

@Suite("serve: HTTPS configuration")
struct TLSConfigurationTests {
    func configuration(_ arguments: [String], environment: [String: String] = [:]) throws -> ServerConfiguration {
        try ServeCommand.parse(arguments).makeConfiguration(environment: environment)
    }

    @Test func plainHTTPUnlessACertificateAndKeyAreGiven() throws {
        let plain = try configuration([])
        #expect(plain.web.tls == nil && plain.web.httpRedirectPort == nil)
        #expect(plain.web.hstsMaxAge == 31_536_000 && plain.web.maxStreams == 100)
    }

    @Test func certificateAndKeyComeFromFlagsOrVariables() throws {
        let flags = try configuration(["--tls-cert", "c.pem", "--tls-key", "k.pem"])
        #expect(flags.web.tls == TLSFiles(certificate: "c.pem", key: "k.pem"))
        let environment = ["CLASSIC_PHOTOS_TLS_CERT": "/e/c.pem", "CLASSIC_PHOTOS_TLS_KEY": "/e/k.pem"]
        #expect(try configuration([], environment: environment).web.tls == TLSFiles(certificate: "/e/c.pem", key: "/e/k.pem"))
        #expect(try configuration(["--tls-cert", "c.pem"], environment: environment).web.tls == TLSFiles(certificate: "c.pem", key: "/e/k.pem"))
        let all = try configuration(
            ["--http-redirect-port", "8081", "--hsts-max-age", "0", "--max-streams", "10"], environment: environment)
        #expect(all.web.httpRedirectPort == 8081 && all.web.hstsMaxAge == 0 && all.web.maxStreams == 10)
    }

    @Test(arguments: [
        (["--tls-cert", "c.pem"], "--tls-cert needs --tls-key (the certificate's private key)"),
        (["--tls-key", "k.pem"], "--tls-key needs --tls-cert (the certificate chain)"),
        (["--http-redirect-port", "80"], "--http-redirect-port redirects to HTTPS: it needs --tls-cert and --tls-key"),
        (["--tls-cert", "c", "--tls-key", "k", "--max-streams", "0"], "--max-streams must be between 1 and 10000, got 0"),
    ])
    func inconsistentSettingsAreRejectedWithAOneLineReason(arguments: [String], reason: String) {
        #expect(throws: SettingError.self) { try configuration(arguments) }
        do {
            _ = try configuration(arguments)
        } catch {
            #expect("\(error)" == reason)
        }
    }
}
