public import Foundation
public import HTTPTransfer
public import PhotoCodecs

/// Everything the pipeline can be tuned by, with documented defaults. Read once at start.
public struct PipelineConfiguration: Sendable {
    /// Prefetch and background downloads running at once across all viewers. Default 4. Rows on a
    /// viewer's screen do not wait for these permits, only for `maxConcurrentTransfers`.
    public var maxConcurrentDownloads: Int
    /// Transfers running at once across all viewers, visible rows' included (the download queue's
    /// width): the global bound however many viewers there are. Default 32.
    public var maxConcurrentTransfers: Int
    /// Filtrations running at once across all viewers; bounded by the cores. Default: active cores.
    public var maxConcurrentFiltrations: Int
    /// Height in pixels of the sepia thumbnail shown in a row. Default 160 (an 80 pt row at 2x).
    public var thumbnailHeight: Int
    /// Sepia intensity 0...1. Default 0.8, as the tutorial's `CISepiaTone`.
    public var sepiaIntensity: Double
    /// Bytes of images the memory cache may hold. Default 256 MiB.
    public var memoryBudgetBytes: Int
    /// Bytes the disk cache (if the pipeline is given one) may hold. Default 1 GiB.
    public var diskBudgetBytes: Int
    /// Bytes of cancelled downloads kept so that the next attempt asks only for the rest (`Range`),
    /// least recently used out first. Default 64 MiB; 0 turns resuming off.
    public var resumeBudgetBytes: Int
    /// Timeouts and size limits of each download.
    public var transferLimits: TransferLimits
    /// Pixel, memory and scan limits of each decode.
    public var decodeLimits: DecodeLimits
    /// Whether a photo's original stays in memory once its thumbnail is made (for the full-size
    /// sepia image). Default true; a lab lane, which shows only thumbnails, keeps just those.
    public var keepsOriginals: Bool
    /// Bounds shared with the other pipelines of the process (the server's list and lab lanes), and
    /// whether this one is their host or a guest. Default nil: only its own queue widths bound it.
    public var sharedBounds: SharedBounds?

    /// Creates a configuration; every argument has the documented default.
    public init(
        maxConcurrentDownloads: Int = 4,
        maxConcurrentTransfers: Int = 32,
        maxConcurrentFiltrations: Int = ProcessInfo.processInfo.activeProcessorCount,
        thumbnailHeight: Int = 160,
        sepiaIntensity: Double = 0.8,
        memoryBudgetBytes: Int = 256 * 1024 * 1024,
        diskBudgetBytes: Int = 1024 * 1024 * 1024,
        resumeBudgetBytes: Int = 64 * 1024 * 1024,
        transferLimits: TransferLimits = .init(),
        decodeLimits: DecodeLimits = .init(),
        keepsOriginals: Bool = true,
        sharedBounds: SharedBounds? = nil
    ) {
        self.maxConcurrentDownloads = maxConcurrentDownloads
        self.maxConcurrentTransfers = maxConcurrentTransfers
        self.maxConcurrentFiltrations = maxConcurrentFiltrations
        self.thumbnailHeight = thumbnailHeight
        self.sepiaIntensity = sepiaIntensity
        self.memoryBudgetBytes = memoryBudgetBytes
        self.diskBudgetBytes = diskBudgetBytes
        self.resumeBudgetBytes = resumeBudgetBytes
        self.transferLimits = transferLimits
        self.decodeLimits = decodeLimits
        self.keepsOriginals = keepsOriginals
        self.sharedBounds = sharedBounds
    }
}
