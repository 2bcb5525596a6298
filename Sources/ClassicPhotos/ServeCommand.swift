import ArgumentParser
import Dispatch
import Foundation
import Logging
import PhotoPipeline
import PhotoServer
import PhotoWeb

/// `classic-photos serve`: the dashboard. Every setting is a flag and an environment variable
/// (flags win), with the defaults `ServerConfiguration` documents.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the live photo list (built-in sample photos unless --source or --photos-dir is given).")

    @Option(help: "Address to listen on. [env: CLASSIC_PHOTOS_HOST] (default: 127.0.0.1)")
    var host: String?
    @Option(help: "Port to listen on, 0 for any free one. [env: CLASSIC_PHOTOS_PORT] (default: \(ServeDefaults.number("port")))")
    var port: Int?
    @Option(help: "Path prefix for the page's links behind a proxy, e.g. /demo. [env: CLASSIC_PHOTOS_BASE_PATH] (default: none)")
    var basePath: String?
    @Option(help: "Data source: a plist or JSON file path or http(s) URL. [env: CLASSIC_PHOTOS_SOURCE] (default: the built-in sample origin)")
    var source: String?
    @Option(help: "Serve this folder of JPEG/PNG photos as the origin. [env: CLASSIC_PHOTOS_PHOTOS_DIR]")
    var photosDir: String?
    @Option(help: "\(SchedulingStrategy.names.joined(separator: ", ")). [env: CLASSIC_PHOTOS_STRATEGY] (default: \(Defaults.strategy.name))")
    var strategy: String?
    @Option(help: "Rows fetched beyond each edge of the viewport with --strategy prefetch, \(Defaults.prefetchMargins.lowerBound) to \(Defaults.prefetchMargins.upperBound). [env: CLASSIC_PHOTOS_PREFETCH] (default: \(Defaults.prefetchMargin))")
    var prefetch: Int?
    @Option(help: "Prefetch and background downloads at once, across all viewers (rows on screen do not wait for these). [env: CLASSIC_PHOTOS_DOWNLOADS] (default: \(ServeDefaults.number("downloads")))")
    var downloads: Int?
    @Option(help: "Transfers at once, across all viewers, rows on screen included. [env: CLASSIC_PHOTOS_MAX_TRANSFERS] (default: \(ServeDefaults.number("max-transfers")))")
    var maxTransfers: Int?
    @Option(help: "Filtrations at once, across all viewers. [env: CLASSIC_PHOTOS_FILTERS] (default: the number of cores)")
    var filters: Int?
    @Option(help: "Memory cache budget in MiB. [env: CLASSIC_PHOTOS_MEMORY_BUDGET_MB] (default: \(ServeDefaults.number("memory-budget-mb")))")
    var memoryBudgetMb: Int?
    @Option(help: "Resident memory in MiB past which all work is cancelled and the image cache emptied. [env: CLASSIC_PHOTOS_MEMORY_LIMIT_MB] (default: the memory budget + 512)")
    var memoryLimitMb: Int?
    @Option(help: "Thumbnail height in pixels. [env: CLASSIC_PHOTOS_THUMBNAIL_HEIGHT] (default: \(ServeDefaults.number("thumbnail-height")))")
    var thumbnailHeight: Int?
    @Option(help: "Where sample photos are kept. [env: CLASSIC_PHOTOS_CACHE_DIR] (default: ~/.cache/classic-photos)")
    var cacheDir: String?
    @Option(help: "Photos in the built-in sample origin. [env: CLASSIC_PHOTOS_PHOTO_COUNT] (default: \(ServeDefaults.number("photo-count")))")
    var photoCount: Int?
    @Option(help: "Sample origin latency per transfer, in ms. [env: CLASSIC_PHOTOS_SAMPLE_LATENCY_MS] (default: \(ServeDefaults.number("sample-latency-ms")))")
    var sampleLatencyMs: Int?
    @Option(help: "Sample origin bandwidth per transfer, in bytes/s. [env: CLASSIC_PHOTOS_SAMPLE_BANDWIDTH] (default: \(ServeDefaults.number("sample-bandwidth")))")
    var sampleBandwidth: Int?
    @Option(help: "Seconds to wait for a connection to an origin. [env: CLASSIC_PHOTOS_CONNECT_TIMEOUT] (default: \(ServeDefaults.number("connect-timeout")))")
    var connectTimeout: Int?
    @Option(help: "Seconds a download may stall before it fails. [env: CLASSIC_PHOTOS_STALL_TIMEOUT] (default: \(ServeDefaults.number("stall-timeout")))")
    var stallTimeout: Int?
    @Option(help: "Least average download speed, in bytes/s, judged once --stall-timeout has passed (0: no check). [env: CLASSIC_PHOTOS_MIN_DOWNLOAD_SPEED] (default: \(ServeDefaults.number("min-download-speed")))")
    var minDownloadSpeed: Int?
    @Option(help: "Seconds a download (the data source's too) may take in all. [env: CLASSIC_PHOTOS_DOWNLOAD_TIMEOUT] (default: \(ServeDefaults.number("download-timeout")))")
    var downloadTimeout: Int?
    @Option(help: "Loopback, private or link-local origins downloads may reach: HOST, HOST:PORT, ADDRESS/BITS or [IPV6]:PORT, comma-separated; the sample origin, --photos-dir and a --source URL's own origin are always allowed. [env: CLASSIC_PHOTOS_ALLOW_SOURCE_HOST] (default: none, public addresses only)")
    var allowSourceHost: String?
    @Option(help: "Largest image accepted, in megapixels. [env: CLASSIC_PHOTOS_MAX_MEGAPIXELS] (default: \(ServeDefaults.number("max-megapixels")))")
    var maxMegapixels: Int?
    @Option(help: "Largest download accepted, in MB. [env: CLASSIC_PHOTOS_MAX_DOWNLOAD_MB] (default: \(ServeDefaults.number("max-download-mb")))")
    var maxDownloadMb: Int?
    @Option(help: "The page's static files. [env: CLASSIC_PHOTOS_PUBLIC_DIR] (default: Public)")
    var publicDir: String?
    @Option(help: "The Mustache templates. [env: CLASSIC_PHOTOS_TEMPLATES_DIR] (default: Templates)")
    var templatesDir: String?
    @Option(help: "Viewers at once; more get 503. [env: CLASSIC_PHOTOS_MAX_VIEWERS] (default: \(ServeDefaults.number("max-viewers")))")
    var maxViewers: Int?
    @Option(help: "Disk cache budget for originals and sepia results, in MiB. [env: CLASSIC_PHOTOS_DISK_BUDGET_MB] (default: \(ServeDefaults.number("disk-budget-mb")))")
    var diskBudgetMb: Int?
    @Option(help: "Largest request head (request line and headers) in bytes; more gets 431. [env: CLASSIC_PHOTOS_MAX_HEADER_BYTES] (default: \(ServeDefaults.number("max-header-bytes")))")
    var maxHeaderBytes: Int?
    @Option(help: "Longest request target in bytes; longer gets 414. [env: CLASSIC_PHOTOS_MAX_URL_LENGTH] (default: \(ServeDefaults.number("max-url-length")))")
    var maxUrlLength: Int?
    @Option(help: "Largest request body in bytes; larger gets 413. [env: CLASSIC_PHOTOS_MAX_BODY_BYTES] (default: \(ServeDefaults.number("max-body-bytes")))")
    var maxBodyBytes: Int?
    @Option(help: "Seconds a connection may take to send a complete request before it is closed. [env: CLASSIC_PHOTOS_IDLE_TIMEOUT] (default: \(ServeDefaults.number("idle-timeout")))")
    var idleTimeout: Int?
    @Option(help: "Seconds a connection may go without its reader taking any of a response before it is closed. [env: CLASSIC_PHOTOS_SEND_TIMEOUT] (default: \(ServeDefaults.number("send-timeout")))")
    var sendTimeout: Int?
    @Option(help: "Open connections at most; accepting pauses past it. [env: CLASSIC_PHOTOS_MAX_CONNECTIONS] (default: the open-files limit - 256)")
    var maxConnections: Int?
    @Option(help: "Open connections per client address; more are answered 429 and closed. [env: CLASSIC_PHOTOS_CONNECTIONS_PER_CLIENT] (default: \(ServeDefaults.number("connections-per-client")))")
    var connectionsPerClient: Int?
    @Option(help: "New viewers per client address per minute; more get 429. [env: CLASSIC_PHOTOS_VIEWERS_PER_MINUTE] (default: \(ServeDefaults.number("viewers-per-minute")))")
    var viewersPerMinute: Int?
    @Option(help: "Viewers following one presentation (/?follow=CODE) at most; one more gets 429. Followers are the presenter's audience: they do not count against --viewers-per-minute. [env: CLASSIC_PHOTOS_FOLLOWERS_PER_PRESENTATION] (default: \(ServeDefaults.number("followers-per-presentation")))")
    var followersPerPresentation: Int?
    @Option(help: "Presentations one client (an IPv4 address, an IPv6 /64) runs at once; one more gets 429. [env: CLASSIC_PHOTOS_PRESENTATIONS_PER_CLIENT] (default: \(ServeDefaults.number("presentations-per-client")))")
    var presentationsPerClient: Int?
    @Option(help: "Retries of failed photos per client address per minute; more get 429. [env: CLASSIC_PHOTOS_RETRIES_PER_MINUTE] (default: \(ServeDefaults.number("retries-per-minute")))")
    var retriesPerMinute: Int?
    @Option(help: "Seconds a new viewer has to open its event stream before it is forgotten. [env: CLASSIC_PHOTOS_VIEWER_CONNECT_TIMEOUT] (default: \(ServeDefaults.number("viewer-connect-timeout")))")
    var viewerConnectTimeout: Int?
    @Option(help: "Proxies whose X-Forwarded-For names the client: addresses or CIDR prefixes, comma-separated. [env: CLASSIC_PHOTOS_TRUSTED_PROXY] (default: none)")
    var trustedProxy: String?
    @Option(help: "Labs (/lab) running at once; one more gets 503. [env: CLASSIC_PHOTOS_MAX_LABS] (default: \(ServeDefaults.number("max-labs")))")
    var maxLabs: Int?
    @Option(help: "Viewers one client (an IPv4 address, an IPv6 /64) holds at once; past it its viewer whose stream went away longest ago makes room, else 429. [env: CLASSIC_PHOTOS_VIEWERS_PER_CLIENT] (default: a quarter of --max-viewers, at least 1)")
    var viewersPerClient: Int?
    @Option(help: "Labs one client (an IPv4 address, an IPv6 /64) runs at once; one more gets 429. [env: CLASSIC_PHOTOS_LABS_PER_CLIENT] (default: a quarter of --max-labs, at least 1)")
    var labsPerClient: Int?
    @Option(help: "Shared event streams (GET /events/shared) one client (an IPv4 address, an IPv6 /64) holds open at once; one more gets 429. [env: CLASSIC_PHOTOS_SHARED_STREAMS_PER_CLIENT] (default: \(ServeDefaults.number("shared-streams-per-client")))")
    var sharedStreamsPerClient: Int?
    @Option(help: "Photos of the lab's browser lane (/lab/images) sent at once; one more gets 503. [env: CLASSIC_PHOTOS_MAX_LAB_IMAGE_TRANSFERS] (default: \(ServeDefaults.number("max-lab-image-transfers")))")
    var maxLabImageTransfers: Int?
    @Option(help: "MiB of events queued for viewers and not yet read, across all viewers, past which a new event stream gets 503. [env: CLASSIC_PHOTOS_UNSENT_EVENTS_BUDGET_MB] (default: \(ServeDefaults.number("unsent-events-budget-mb")))")
    var unsentEventsBudgetMb: Int?
    @Option(help: "trace, debug, info, notice, warning, error or critical. [env: CLASSIC_PHOTOS_LOG_LEVEL] (default: info)")
    var logLevel: String?
    @Option(help: "PostgreSQL shared with other instances, postgres://user:password@host:port/database. [env: CLASSIC_PHOTOS_DATABASE_URL] (default: none, everything in this process)")
    var databaseUrl: String?
    @Option(help: "This instance's name among the others (letters, digits, - and _). [env: CLASSIC_PHOTOS_INSTANCE_NAME] (default: random)")
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
        let scheme = configuration.tls == nil ? "http" : "https"
        let address = "\(scheme)://\(configuration.host):\(server.port)\(configuration.basePath)/"
        // Written unbuffered: a supervisor or script reading a pipe sees the address at once.
        FileHandle.standardOutput.write(Data("ClassicPhotos Live on \(address) (strategy \(configuration.strategy.name))\n".utf8))
        try await server.run()
    }
}
