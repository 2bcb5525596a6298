import ArgumentParser
import PhotoWeb
import PhotoServer
import PhotoTransport

/// The HTTPS settings of `classic-photos serve`: flags and environment variables like every other.
struct TLSOptions: ParsableArguments {
    @Option(TextSetting.tlsCert)
    var tlsCert: String?
    @Option(TextSetting.tlsKey)
    var tlsKey: String?
    @Option(NumberSetting.httpRedirectPort)
    var httpRedirectPort: Int?
    @Option(NumberSetting.hstsMaxAge)
    var hstsMaxAge: Int?
    @Option(NumberSetting.maxStreams)
    var maxStreams: Int?
    @Option(NumberSetting.streamsPerClient)
    var streamsPerClient: Int?

    /// Reads these settings into `configuration`, checking that they make sense together.
    func apply(_ settings: SettingValues, to configuration: inout ServerConfiguration) throws {
        let certificate = settings.string(.tlsCert, tlsCert)
        let key = settings.string(.tlsKey, tlsKey)
        switch (certificate, key) {
        case (let certificate?, let key?): configuration.web.tls = TLSFiles(certificate: certificate, key: key)
        case (nil, nil): configuration.web.tls = nil
        case (_?, nil): throw SettingError(description: "--tls-cert needs --tls-key (the certificate's private key)")
        case (nil, _?): throw SettingError(description: "--tls-key needs --tls-cert (the certificate chain)")
        }
        if let port = try settings.int(.httpRedirectPort, httpRedirectPort) {
            guard configuration.web.tls != nil else {
                throw SettingError(description: "--http-redirect-port redirects to HTTPS: it needs --tls-cert and --tls-key")
            }
            configuration.web.httpRedirectPort = UInt16(port)
        }
        configuration.web.hstsMaxAge = try settings.int(.hstsMaxAge, hstsMaxAge) ?? configuration.web.hstsMaxAge
        configuration.web.maxStreams = try settings.int(.maxStreams, maxStreams) ?? configuration.web.maxStreams
        configuration.web.streamsPerClient = try settings.int(.streamsPerClient, streamsPerClient)
    }
}
