import ArgumentParser
import PhotoWeb

/// The HTTPS settings of `classic-photos serve`: flags and environment variables like every other.
struct TLSOptions: ParsableArguments {
    @Option(help: "PEM certificate chain: serve HTTPS (HTTP/2 and HTTP/1.1); SIGHUP reads it again. [env: CLASSIC_PHOTOS_TLS_CERT] (default: none, plain HTTP)")
    var tlsCert: String?
    @Option(help: "PEM private key of --tls-cert. [env: CLASSIC_PHOTOS_TLS_KEY]")
    var tlsKey: String?
    @Option(help: "With TLS: a plain-HTTP port that redirects every request to HTTPS. [env: CLASSIC_PHOTOS_HTTP_REDIRECT_PORT] (default: none)")
    var httpRedirectPort: Int?
    @Option(help: "With TLS: Strict-Transport-Security max-age in seconds, 0 for none. [env: CLASSIC_PHOTOS_HSTS_MAX_AGE] (default: 31536000)")
    var hstsMaxAge: Int?
    @Option(help: "HTTP/2 streams open at once per connection; more are refused. [env: CLASSIC_PHOTOS_MAX_STREAMS] (default: 100)")
    var maxStreams: Int?
    @Option(help: "HTTP/2 streams one client (an IPv4 address, an IPv6 /64) holds open at once across its connections; more are refused. [env: CLASSIC_PHOTOS_STREAMS_PER_CLIENT] (default: twice --max-streams, 200)")
    var streamsPerClient: Int?

    /// Reads these settings into `configuration`, checking that they make sense together.
    func apply(_ settings: Settings, to configuration: inout ServerConfiguration) throws {
        let certificate = try settings.string("tls-cert", tlsCert)
        let key = try settings.string("tls-key", tlsKey)
        switch (certificate, key) {
        case (let certificate?, let key?): configuration.tls = TLSFiles(certificate: certificate, key: key)
        case (nil, nil): configuration.tls = nil
        case (_?, nil): throw SettingError(description: "--tls-cert needs --tls-key (the certificate's private key)")
        case (nil, _?): throw SettingError(description: "--tls-key needs --tls-cert (the certificate chain)")
        }
        if let port = try settings.int("http-redirect-port", httpRedirectPort, in: 0...65_535) {
            guard configuration.tls != nil else {
                throw SettingError(description: "--http-redirect-port redirects to HTTPS: it needs --tls-cert and --tls-key")
            }
            configuration.httpRedirectPort = UInt16(port)
        }
        configuration.hstsMaxAge = try settings.int("hsts-max-age", hstsMaxAge, in: 0...63_072_000) ?? configuration.hstsMaxAge
        configuration.maxStreams = try settings.int("max-streams", maxStreams, in: 1...10_000) ?? configuration.maxStreams
        configuration.streamsPerClient = try settings.int("streams-per-client", streamsPerClient, in: 1...10_000_000)
    }
}
