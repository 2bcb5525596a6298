import PhotoWeb
import HTTPTransfer
import PhotoCodecs
import PhotoPipeline
import SampleOrigin

/// The defaults `serve --help` prints, read from `ServerConfiguration()` (and `Defaults`), where they
/// are written once; a test checks the README's configuration table against them.
enum ServeDefaults {
    static let configuration = ServerConfiguration()

    /// Each flag with a number for its default, and that number.
    static let numbers: [(flag: String, value: Int)] = {
        let c = configuration, p = configuration.pipeline
        return [
            ("port", Int(c.port)),
            ("prefetch", Defaults.prefetchMargin),
            ("downloads", p.maxConcurrentDownloads),
            ("max-transfers", p.maxConcurrentTransfers),
            ("memory-budget-mb", p.memoryBudgetBytes / 1_048_576),
            ("thumbnail-height", p.thumbnailHeight),
            ("photo-count", c.sample.photoCount),
            ("sample-latency-ms", milliseconds(c.sample.latency)),
            ("sample-bandwidth", c.sample.bandwidth),
            ("connect-timeout", seconds(p.transferLimits.connectTimeout)),
            ("stall-timeout", seconds(p.transferLimits.lowSpeedTime)),
            ("min-download-speed", p.transferLimits.minimumAverageSpeed),
            ("download-timeout", seconds(p.transferLimits.totalTimeout ?? .zero)),
            ("max-megapixels", p.decodeLimits.maxPixels / 1_000_000),
            ("max-download-mb", p.transferLimits.maxBodyBytes / 1_048_576),
            ("max-viewers", c.maxViewers),
            ("disk-budget-mb", p.diskBudgetBytes / 1_048_576),
            ("max-header-bytes", c.maxHeaderBytes),
            ("max-url-length", c.maxURLLength),
            ("max-body-bytes", c.maxRequestBodyBytes),
            ("idle-timeout", seconds(c.idleTimeout)),
            ("send-timeout", seconds(c.sendTimeout)),
            ("connections-per-client", c.connectionsPerClient),
            ("viewers-per-minute", c.viewersPerMinute),
            ("followers-per-presentation", c.followersPerPresentation),
            ("presentations-per-client", c.presentationsPerClient),
            ("retries-per-minute", c.retriesPerMinute),
            ("viewer-connect-timeout", seconds(c.viewerConnectTimeout)),
            ("max-labs", c.maxLabs),
            ("shared-streams-per-client", c.sharedStreamsPerClient),
            ("max-lab-image-transfers", c.maxLabImageTransfers),
            ("unsent-events-budget-mb", c.unsentEventsBudgetBytes / 1_048_576),
        ]
    }()

    /// The default of `flag`, as the help prints it.
    static func number(_ flag: String) -> Int {
        numbers.first { $0.flag == flag }?.value ?? 0
    }

    private static func seconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds)
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1_000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
