import Foundation
import HTTPTransfer
import PhotoCodecs
import Synchronization

/// The shared engine under every viewer: the records, one `PendingOperations`, the image cache and
/// the event stream.
///
/// Viewers (`PhotoListController`s) say which rows they want and whether they are scrolling; the
/// pipeline runs each photo's download and filtration at most once at a time, however many viewers
/// want it, and cancels it only when none does. All of its bookkeeping sits behind one lock; its
/// methods are synchronous and may be called from any thread.
public final class PhotoPipeline: Sendable {
    /// Every row of the list, ordered by name; a record's `index` is its position here.
    public let records: [PhotoRecord]
    /// The settings the pipeline was made with.
    public let configuration: PipelineConfiguration
    /// Every state change, progress update and operation start or end, in order.
    public let events = EventPublisher()

    let loop: TransferLoop
    let renderer: SepiaRenderer
    /// Originals and results kept across restarts, when configured.
    let disk: DiskCache?
    let state: Mutex<State>

    struct State {
        var pending: PendingOperations
        /// Who wants each photo, and how much.
        var demand: [Int: [ViewerID: RowPriority]] = [:]
        var viewers: [ViewerID: ViewerDemand] = [:]
        var cache: ImageCache
        var stats = PipelineStats()
        /// Rows some viewer has had on screen: work on any other row is waste.
        var everVisible = Set<Int>()
        var work: [Int: PhotoWork] = [:]
        /// Downloaded bytes held for the photo's filtration, whatever the cache evicts meanwhile.
        var awaitingFiltration: [Int: Data] = [:]
    }

    struct ViewerDemand {
        var suspended = false
        var wanted = Set<Int>()
    }

    /// What was spent on one photo, for the wasted-work figures.
    struct PhotoWork {
        var bytes: Int64 = 0
        var bytesInFlight: Int64 = 0
        var downloads = 0
        var filterSeconds: Double = 0
    }

    /// Creates the pipeline for `entries` (kept in the given order); entries with a problem start
    /// as failed with that reason, and entries whose results `disk` already holds start done.
    public init(
        entries: [PhotoEntry], configuration: PipelineConfiguration = .init(), loop: TransferLoop = .shared,
        disk: DiskCache? = nil
    ) {
        self.records = entries.enumerated().map { index, entry in
            PhotoRecord(
                index: index, name: entry.name, url: entry.url, cacheKey: entry.cacheKey,
                state: entry.problem.map { .failed(reason: $0) } ?? .new)
        }
        self.configuration = configuration
        self.loop = loop
        self.renderer = SepiaRenderer(intensity: configuration.sepiaIntensity, limits: configuration.decodeLimits)
        self.disk = disk
        self.state = Mutex(State(
            pending: PendingOperations(
                maxConcurrentDownloads: max(1, configuration.maxConcurrentDownloads),
                maxConcurrentFiltrations: max(1, configuration.maxConcurrentFiltrations)),
            cache: ImageCache(budget: configuration.memoryBudgetBytes)))
        // What the disk cache kept from an earlier run is done already: the same rule as after an eviction.
        state.withLock { state in
            for record in records where record.state == .new {
                record.setState(restingState(of: record.index, in: state))
            }
        }
    }

    /// Server totals, with the waste on rows no viewer has had on screen.
    public var stats: PipelineStats {
        state.withLock { state in
            var stats = state.stats
            stats.cacheBytes = state.cache.totalBytes
            for (queue, counts) in [(QueueKind.download, state.pending.downloadsInProgress.values.map { $0 as PhotoOperation }),
                                    (.filtration, state.pending.filtrationsInProgress.values.map { $0 as PhotoOperation })] {
                let executing = counts.filter(\.isExecuting).count
                stats[queue].executing = executing
                stats[queue].pending = counts.count - executing
            }
            for (index, work) in state.work where !state.everVisible.contains(index) {
                stats.wastedBytes += work.bytes
                stats.wastedDownloads += work.downloads
                stats.wastedFilterSeconds += work.filterSeconds
            }
            return stats
        }
    }

    /// One viewer's view of the queues.
    public func queueStatus(for viewer: ViewerID) -> ViewerQueueStatus {
        state.withLock { state in
            let viewerDemand = state.viewers[viewer] ?? ViewerDemand()
            var status = ViewerQueueStatus()
            status.download.suspended = viewerDemand.suspended
            status.filtration.suspended = viewerDemand.suspended
            for index in viewerDemand.wanted {
                if let downloader = state.pending.downloadsInProgress[index] {
                    if downloader.isExecuting { status.download.executing += 1 } else { status.download.pending += 1 }
                }
                if let filtration = state.pending.filtrationsInProgress[index] {
                    if filtration.isExecuting { status.filtration.executing += 1 } else { status.filtration.pending += 1 }
                }
            }
            return status
        }
    }

    /// Rows `viewer` wants that still have work to do: the viewer's pending operations.
    public func pendingRows(of viewer: ViewerID) -> Set<Int> {
        state.withLock { $0.viewers[viewer]?.wanted ?? [] }
    }

    /// Stops everything: cancels all work and ends every event stream.
    public func shutdown() {
        let operations = state.withLock { state in
            defer {
                state.pending.downloadsInProgress.removeAll()
                state.pending.filtrationsInProgress.removeAll()
                state.demand.removeAll()
                state.viewers.removeAll()
            }
            return state.pending.downloadsInProgress.values.map { $0 as PhotoOperation }
                + state.pending.filtrationsInProgress.values.map { $0 as PhotoOperation }
        }
        operations.forEach { $0.cancel() }
        disk?.flush()
        events.finishAll()
    }

    // MARK: Changing records

    /// Moves `record` to `newState` and tells subscribers; call with the lock held.
    func transition(_ record: PhotoRecord, to newState: PhotoState) {
        if record.setState(newState) {
            events.publish(.photo(index: record.index, state: newState))
        }
    }

    /// Puts each record whose cached images were evicted back in the resting state its remaining
    /// images allow; call with the lock held.
    func handleEvictions(_ keys: [ImageCache.Key], in state: State) {
        for index in Set(keys.map(\.index)) {
            let record = records[index]
            switch record.state {
            case .new, .downloaded, .filtered:
                transition(record, to: restingState(of: index, in: state))
            case .downloading, .filtering, .failed:
                continue
            }
        }
    }

    func restingState(of index: Int, in state: State) -> PhotoState {
        if state.cache.contains(.init(index: index, variant: .thumbnail)) || onDisk(index, .thumbnail) { return .filtered }
        if state.cache.contains(.init(index: index, variant: .original)) || state.awaitingFiltration[index] != nil
            || onDisk(index, .original) {
            return .downloaded
        }
        return .new
    }

    // MARK: Disk

    /// The disk cache's name for a photo's `variant`: the hash of its cache key (its URL), and for
    /// sepia results the settings that shaped them, so a change of height or intensity is not served stale.
    static func diskKey(cacheKey: String, variant: ImageVariant, configuration: PipelineConfiguration) -> String {
        let hash = ContentHash.of(cacheKey)
        let intensity = Int((configuration.sepiaIntensity * 100).rounded())
        return switch variant {
        case .original: "\(hash)-original"
        case .thumbnail: "\(hash)-thumbnail-h\(configuration.thumbnailHeight)-i\(intensity)"
        case .preview: "\(hash)-preview-h\(configuration.thumbnailHeight)"
        case .sepia: "\(hash)-sepia-i\(intensity)"
        }
    }

    func diskKey(_ index: Int, _ variant: ImageVariant) -> String {
        Self.diskKey(cacheKey: records[index].cacheKey, variant: variant, configuration: configuration)
    }

    func onDisk(_ index: Int, _ variant: ImageVariant) -> Bool {
        disk?.contains(diskKey(index, variant)) ?? false
    }

    /// Keeps a rendered `image` as photo `index`'s `variant`, in the memory cache and on disk;
    /// call with the lock held.
    func store(_ image: EncodedImage, as variant: ImageVariant, of index: Int, in state: inout State) {
        keepOnDisk(image.data, index, variant)
        let evicted = state.cache.insert(
            CachedImage(data: image.data, format: image.format), for: .init(index: index, variant: variant))
        handleEvictions(evicted, in: state)
    }

    /// Keeps `data` on disk too, when there is a disk cache.
    func keepOnDisk(_ data: Data, _ index: Int, _ variant: ImageVariant) {
        disk?.write(data, for: diskKey(index, variant))
    }
}
