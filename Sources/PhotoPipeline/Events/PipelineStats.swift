/// Server-wide totals: what the queues did, what was downloaded, and what was wasted on photos
/// nobody ever saw.
public struct PipelineStats: Sendable, Equatable {
    /// Operation counts for one queue, one ledger: `started == finished + cancelledRunning + failed +
    /// executing` at every reading (all are read under the pipeline's one lock), and operations
    /// cancelled before they started are counted apart (`cancelledQueued`: they never ran).
    public struct QueueCounts: Sendable, Equatable {
        public var started = 0
        public var finished = 0
        public var failed = 0
        /// Operations cancelled while running (they had started).
        public var cancelledRunning = 0
        /// Operations cancelled while still queued (they never started).
        public var cancelledQueued = 0
        /// Every cancelled operation, counted from its two kinds (never stored beside them).
        public var cancelled: Int { cancelledRunning + cancelledQueued }
        /// Operations waiting in the queue now.
        public var pending = 0
        /// Operations running now: started and not yet ended (one being cancelled runs until it ends).
        public var executing = 0
        /// The most operations running at once since the server started (every viewer's and page's
        /// "most at once" is this one figure).
        public var mostExecuting = 0
    }

    /// Counts for the download queue.
    public var downloads = QueueCounts()
    /// Counts for the filtration queue.
    public var filtrations = QueueCounts()
    /// Body bytes received by all transfers, including aborted ones.
    public var bytesDownloaded: Int64 = 0
    /// Transfers aborted while bytes were still arriving.
    public var transfersAborted = 0
    /// Image requests answered from the cache.
    public var cacheHits = 0
    /// Image requests the cache could not answer.
    public var cacheMisses = 0
    /// Bytes the memory cache holds now.
    public var cacheBytes = 0
    /// Bytes downloaded for photos that no viewer has ever had on screen.
    public var wastedBytes: Int64 = 0
    /// Downloads finished for photos no viewer has ever had on screen.
    public var wastedDownloads = 0
    /// CPU seconds spent filtering photos no viewer has ever had on screen.
    public var wastedFilterSeconds: Double = 0
    /// The part of the work once done ahead (for rows nobody had seen) that went to rows a viewer has
    /// seen since: the waste figures went down by it. Ahead now + this = all work ever done ahead.
    public var seenSinceBytes: Int64 = 0
    public var seenSinceDownloads = 0
    public var seenSinceFilterSeconds: Double = 0
    /// CPU seconds spent filtering, in all.
    public var filterSeconds: Double = 0
    /// Bytes of cancelled downloads held now so that their next attempt asks only for the rest
    /// (bounded by `PipelineConfiguration.resumeBudgetBytes`).
    public var resumableBytes = 0
    /// Bytes not downloaded again because a transfer resumed from them (a `206` continued them).
    public var resumedBytes: Int64 = 0
    /// Decodes of bytes still arriving made for previews (each bounded per photo: see `ArrivedBytes`).
    public var previewDecodes = 0
    /// Final thumbnails whose decode was made as the bytes arrived, only the image's end left at the
    /// last byte (see `ArrivingJPEG`).
    public var decodedAhead = 0
    /// How many photos of the list are in each state, by the state's name.
    public var states: [String: Int] = [:]

    /// All zero.
    public init() {}

    /// Counts for `queue`.
    public subscript(queue: QueueKind) -> QueueCounts {
        get { queue == .download ? downloads : filtrations }
        set {
            if queue == .download { downloads = newValue } else { filtrations = newValue }
        }
    }
}
