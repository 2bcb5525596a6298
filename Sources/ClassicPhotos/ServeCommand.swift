import ArgumentParser
import Dispatch
import Foundation
import Logging
import PhotoPipeline
import PhotoServer
import PhotoWeb

/// `classic-photos serve`: the dashboard. Every setting is a flag and an environment variable
/// (flags win), named, described and bounded by the settings table (`NumberSetting`, `TextSetting`).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the live photo list (built-in sample photos unless --source or --photos-dir is given).")

    @Option(TextSetting.host)
    var host: String?
    @Option(NumberSetting.port)
    var port: Int?
    @Option(TextSetting.basePath)
    var basePath: String?
    @Option(TextSetting.source)
    var source: String?
    @Option(TextSetting.photosDir)
    var photosDir: String?
    @Option(TextSetting.strategy)
    var strategy: String?
    @Option(NumberSetting.prefetch)
    var prefetch: Int?
    @Option(NumberSetting.downloads)
    var downloads: Int?
    @Option(NumberSetting.maxTransfers)
    var maxTransfers: Int?
    @Option(NumberSetting.filters)
    var filters: Int?
    @Option(NumberSetting.memoryBudgetMb)
    var memoryBudgetMb: Int?
    @Option(NumberSetting.memoryLimitMb)
    var memoryLimitMb: Int?
    @Option(NumberSetting.thumbnailHeight)
    var thumbnailHeight: Int?
    @Option(TextSetting.cacheDir)
    var cacheDir: String?
    @Option(NumberSetting.photoCount)
    var photoCount: Int?
    @Option(NumberSetting.sampleLatencyMs)
    var sampleLatencyMs: Int?
    @Option(NumberSetting.sampleBandwidth)
    var sampleBandwidth: Int?
    @Option(NumberSetting.connectTimeout)
    var connectTimeout: Int?
    @Option(NumberSetting.stallTimeout)
    var stallTimeout: Int?
    @Option(NumberSetting.minDownloadSpeed)
    var minDownloadSpeed: Int?
    @Option(NumberSetting.downloadTimeout)
    var downloadTimeout: Int?
    @Option(TextSetting.allowSourceHost)
    var allowSourceHost: String?
    @Option(NumberSetting.maxMegapixels)
    var maxMegapixels: Int?
    @Option(NumberSetting.maxDownloadMb)
    var maxDownloadMb: Int?
    @Option(TextSetting.publicDir)
    var publicDir: String?
    @Option(TextSetting.templatesDir)
    var templatesDir: String?
    @Option(NumberSetting.maxViewers)
    var maxViewers: Int?
    @Option(NumberSetting.diskBudgetMb)
    var diskBudgetMb: Int?
    @Option(NumberSetting.maxHeaderBytes)
    var maxHeaderBytes: Int?
    @Option(NumberSetting.maxUrlLength)
    var maxUrlLength: Int?
    @Option(NumberSetting.maxBodyBytes)
    var maxBodyBytes: Int?
    @Option(NumberSetting.idleTimeout)
    var idleTimeout: Int?
    @Option(NumberSetting.sendTimeout)
    var sendTimeout: Int?
    @Option(NumberSetting.maxConnections)
    var maxConnections: Int?
    @Option(NumberSetting.connectionsPerClient)
    var connectionsPerClient: Int?
    @Option(NumberSetting.viewersPerMinute)
    var viewersPerMinute: Int?
    @Option(NumberSetting.followersPerPresentation)
    var followersPerPresentation: Int?
    @Option(NumberSetting.roomSize)
    var roomSize: Int?
    @Option(NumberSetting.presentationsPerClient)
    var presentationsPerClient: Int?
    @Option(NumberSetting.retriesPerMinute)
    var retriesPerMinute: Int?
    @Option(NumberSetting.viewerConnectTimeout)
    var viewerConnectTimeout: Int?
    @Option(TextSetting.trustedProxy)
    var trustedProxy: String?
    @Option(NumberSetting.maxLabs)
    var maxLabs: Int?
    @Option(NumberSetting.viewersPerClient)
    var viewersPerClient: Int?
    @Option(NumberSetting.labsPerClient)
    var labsPerClient: Int?
    @Option(NumberSetting.sharedStreamsPerClient)
    var sharedStreamsPerClient: Int?
    @Option(NumberSetting.maxLabImageTransfers)
    var maxLabImageTransfers: Int?
    @Option(NumberSetting.unsentEventsBudgetMb)
    var unsentEventsBudgetMb: Int?
    @Option(TextSetting.logLevel)
    var logLevel: String?
    @Option(TextSetting.databaseUrl)
    var databaseUrl: String?
    @Option(TextSetting.instanceName)
    var instanceName: String?
    @OptionGroup var tlsOptions: TLSOptions

    func run() async throws {
        let configuration: ServerConfiguration
        do {
            configuration = try makeConfiguration(environment: ProcessInfo.processInfo.environment)
        } catch let error as SettingError {
            throw ValidationError(error.description)
        }
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let server: PhotoServer
        do {
            // SIGTERM and SIGINT stop it gracefully, SIGHUP reads the TLS files again.
            server = try await PhotoServer.start(configuration, handlingSignals: true)
        } catch {
            throw CommandFailure("\(error)")
        }
        let scheme = configuration.web.tls == nil ? "http" : "https"
        let address = "\(scheme)://\(configuration.web.host):\(server.port)\(configuration.web.basePath)/"
        // Written unbuffered: a supervisor or script reading a pipe sees the address at once.
        FileHandle.standardOutput.write(Data("ClassicPhotos Live on \(address) (strategy \(configuration.web.strategy.name))\n".utf8))
        try await server.run()
    }
}
