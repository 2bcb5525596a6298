import Foundation
public import PhotoCluster
public import PhotoPipeline
public import PhotoWeb
public import SampleOrigin

/// Every setting of `classic-photos serve`: each layer's own settings side by side, read once at
/// start, used by `main` and the tests alike. Each layer documents its defaults.
public struct ServerConfiguration: Sendable {
    /// The HTTP side: listening, request limits, viewers, labs, TLS.
    public var web = WebConfiguration()
    /// Queue widths, thumbnail size, memory budget, download and decode limits.
    public var pipeline = PipelineConfiguration()
    /// The built-in sample origin: photo count, latency, bandwidth, folder.
    public var sample: SampleOriginConfiguration
    /// Other instances sharing the work through PostgreSQL, and this one's name.
    public var cluster = ClusterConfiguration()
    /// A data source (plist or JSON; a file path or an http(s) URL). Default nil: the built-in sample origin.
    public var source: String?
    /// A folder of the user's own images to serve as the origin instead of the samples.
    public var photosDirectory: String?
    /// Where generated sample photos are kept. Default `$XDG_CACHE_HOME/classic-photos` or `~/.cache/classic-photos`.
    public var cacheDirectory: String
    /// Resident memory past which the server does what the tutorial does on a memory warning: cancel
    /// all queued work and empty the image cache. Default: the memory budget plus 512 MiB.
    public var memoryLimitBytes: Int?

    /// The defaults, with the cache (and the sample photos) under the user's cache folder.
    public init() {
        cacheDirectory = Self.defaultCacheDirectory()
        sample = SampleOriginConfiguration(directory: cacheDirectory)
    }

    /// The resident memory that triggers a memory warning.
    public var effectiveMemoryLimit: Int { memoryLimitBytes ?? pipeline.memoryBudgetBytes + 512 * 1024 * 1024 }

    /// Where downloaded originals and sepia results are kept across restarts.
    var imageCacheDirectory: String { cacheDirectory + "/images" }

    static func defaultCacheDirectory() -> String {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return xdg + "/classic-photos" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.cache/classic-photos" }
        return NSTemporaryDirectory() + "classic-photos"
    }
}
