import Foundation
public import HTTPTransfer
import PhotoCodecs
import Locking

/// The shared engine under every viewer: the records, one `PendingOperations`, the image store and
/// the event stream.
///
/// Viewers (`PhotoListController`s) say which rows they want and whether they are scrolling; the
/// pipeline runs each photo's download and filtration at most once at a time, however many viewers
/// want it, and cancels it only when none does. Its methods are synchronous and may be called from
/// any thread.
///
/// Shape: one lock (`PipelineCore`) around `PipelineState`, whose parts each own one fact (demand,
/// operations and tracks, work ledger, image store, failures). Every change is a locked section that
/// decides and returns `Effects` (enqueue, cancel, gates, disk writes, events), carried out by
/// `update` once the lock is released. Data flows forward: the download hands its bytes to the
/// filtration that depends on it, and both report what they produced.
public final class PhotoPipeline: Sendable {
    /// Every row of the list, ordered by name: a record's `index` is its position here. What never
    /// changes (name, URL); a row's state is read with `record(_:)` or `records(in:)`.
    public let entries: [PhotoEntry]
    /// The settings the pipeline was made with.
    public let configuration: PipelineConfiguration
    /// Every state change, progress update and operation start or end, in order.
    public let events = EventPublisher()

    let loop: TransferLoop
    let renderer: SepiaRenderer
    /// Results kept beyond memory (and across restarts), when configured.
    let results: (any ResultStoring)?
    /// Whether results are kept beyond memory, and why not now (a full or read-only disk) when they cannot be.
    public var resultStore: (configured: Bool, problem: String?) { (results != nil, results?.writeProblem) }
    /// Who runs each photo's work.
    let claims: any WorkClaiming
    let core: PipelineCore
    /// Each result's name in the results store, back to what it is (for results other instances keep).
    let resultKeys: [String: ImageCache.Key]
    /// Full-size sepia renders running, by photo and cold start: one at a time per photo, however many ask.
    let fullSizeRenders = SingleFlight<FullSizeRender, CachedImage>()
    /// Requests for thumbnails still on their way, woken by the photos' state changes.
    let thumbnailWaits = ThumbnailWaits()

    /// Creates the pipeline for `entries` (kept in the given order); entries with a problem start
    /// as failed with that reason, and entries whose results `disk` already holds start done.
    /// `claims` decides who runs each photo's work (this process alone, by default).
    public init(
        entries: [PhotoEntry], configuration: PipelineConfiguration = .init(), loop: TransferLoop = .shared,
        disk: (any ResultStoring)? = nil, claims: any WorkClaiming = LocalWorkClaims()
    ) {
        self.configuration = configuration
        self.loop = loop
        self.renderer = SepiaRenderer(intensity: configuration.sepiaIntensity, limits: configuration.decodeLimits)
        self.results = disk
        self.claims = claims
        var failures: [Int: PipelineState.Failure] = [:]
        var onDisk: [ImageCache.Key: String] = [:]
        var resultKeys: [String: ImageCache.Key] = [:]
        for (index, entry) in entries.enumerated() {
            if let problem = entry.problem {
                failures[index] = .init(reason: problem)
                continue
            }
            // What the results store kept from an earlier run is done already.
            for variant in ImageVariant.kept {
                let name = Self.diskKey(cacheKey: entry.cacheKey, variant: variant, configuration: configuration)
                if claims.isShared { resultKeys[name] = .init(index: index, variant: variant) }
                if disk?.contains(name) == true { onDisk[.init(index: index, variant: variant)] = name }
            }
        }
        self.resultKeys = resultKeys
        var state = PipelineState(
            pending: PendingOperations(
                maxConcurrentTransfers: max(1, configuration.maxConcurrentDownloads, configuration.maxConcurrentTransfers),
                maxConcurrentFiltrations: max(1, configuration.maxConcurrentFiltrations)),
            store: ImageStore(
                memoryBudget: configuration.memoryBudgetBytes, resumeBudget: max(0, configuration.resumeBudgetBytes),
                onDisk: onDisk),
            failures: failures)
        let census = StateCensus(entries.indices.map { [state] index in state.photoState(of: index) })
        state.census = census
        core = PipelineCore(state)
        self.entries = entries
        disk?.whenLost { [weak self] names in self?.resultsLost(names) }
    }

    /// Server totals, with the waste on rows no viewer has had on screen.
    public var stats: PipelineStats {
        core.lock.withLock { state in
            var stats = PipelineStats()
            stats.downloads = state.pending.counts(of: .download)
            stats.filtrations = state.pending.counts(of: .filtration)
            state.ledger.fill(&stats)
            stats.cacheHits = state.store.hits
            stats.cacheMisses = state.store.misses
            stats.cacheBytes = state.store.memory.totalBytes
            stats.resumableBytes = state.store.partials.totalBytes
            stats.states = state.census.byName
            stats.previewDecodes = state.arrived.decodes
            stats.decodedAhead = state.arrived.decodedAhead
            return stats
        }
    }

    /// How many photos of the list are in each state now, by the state's name (every name present).
    public var stateCounts: [String: Int] {
        core.lock.withLock { $0.census.byName }
    }

    /// Photo `index`'s record now; `index` must be in the list.
    public func record(_ index: Int) -> PhotoRecord {
        core.lock.withLock { record(index, in: $0) }
    }

    /// The records of rows `rows` (clamped to the list), all read at the same moment: one lock read.
    public func records(in rows: ClosedRange<Int>) -> [PhotoRecord] {
        guard !entries.isEmpty, rows.upperBound >= 0, rows.lowerBound < entries.count else { return [] }
        let rows = rows.clamped(to: 0...(entries.count - 1))
        return core.lock.withLock { state in rows.map { record($0, in: state) } }
    }

    /// Photo `index`'s record in `state`. Under the lock.
    func record(_ index: Int, in state: PipelineState) -> PhotoRecord {
        PhotoRecord(index: index, entry: entries[index], state: state.photoState(of: index))
    }

    /// One viewer's view of the queues, with its own work so far.
    public func queueStatus(for viewer: ViewerID) -> ViewerQueueStatus {
        core.lock.withLock { state in
            var status = ViewerQueueStatus()
            let work = state.ledger.work(of: viewer)
            (status.work, status.waste, status.seenSince) = (work.total, work.waste, work.seenSince)
            status.download.suspended = state.demand.isScrolling(viewer)
            status.filtration.suspended = status.download.suspended
            for index in state.demand.rows(wantedBy: viewer) {
                for operation in state.pending.operations(for: index) {
                    let running = state.pending.isRunning(operation)
                    switch operation.queue {
                    case .download: if running { status.download.executing += 1 } else { status.download.pending += 1 }
                    case .filtration: if running { status.filtration.executing += 1 } else { status.filtration.pending += 1 }
                    }
                }
            }
            return status
        }
    }

    /// Rows `viewer` wants that still have work to do: the viewer's pending operations.
    public func pendingRows(of viewer: ViewerID) -> Set<Int> {
        core.lock.withLock { $0.demand.rows(wantedBy: viewer) }
    }

    /// Stops everything: cancels all work and ends every event stream.
    public func shutdown() {
        update { state, effects in
            state.pending.removeAll().forEach { effects.cancel($0) }
            state.demand = Demand()
        }
        results?.flush()
        events.finishAll()
    }

    // MARK: Sections

    /// Runs `section` under the lock, then carries out the effects it decided on.
    @discardableResult
    func update<Result: Sendable>(_ section: (inout PipelineState, inout Effects) -> Result) -> Result {
        let transport = events
        let (result, effects) = core.lock.withLock { state in
            var effects = Effects(transport: transport)
            let result = section(&state, &effects)
            if effects.permitsMayHaveChanged { grantDownloadPermits(in: &state, &effects) }
            for move in effects.moves { state.census.move(from: move.before, to: move.now) }
            return (result, effects)
        }
        apply(effects)
        return result
    }

    /// Carries out `effects`, with the lock released: the writes are handed to the results store
    /// (so that a viewer told a photo is done can rely on a shutdown keeping it), then the events (the
    /// publisher holds back every later-stamped event until these arrive), then what the results store
    /// evicted for the writes is forgotten, and scheduling, links, enqueues and cancels follow.
    private func apply(_ effects: Effects) {
        let evicted = effects.writes.compactMap { results?.write($0.data, for: $0.name) }.filter { !$0.isEmpty }
        events.deliver(effects.events)
        thumbnailWaits.delivered(effects.events)
        evicted.forEach(resultsLost)
        effects.decided.forEach { $0.applyDecision() }
        for (filtration, download) in effects.dependencies {
            filtration.addDependency(download)
        }
        for (operation, queue) in effects.enqueued {
            queue.addOperation(operation)
        }
        effects.cancelled.forEach { $0.cancel() }
        effects.calls.forEach { $0() }
    }

    // MARK: Keeping results

    /// Forgets results the store no longer holds (evicted, a write that failed, a damaged file): a
    /// photo is `filtered` or `downloaded` only while what it needs can still be served, from memory
    /// if not from the store, and is otherwise worked on again when next wanted.
    func resultsLost(_ names: [String]) {
        update { state, effects in
            effects.storeChanged(state.store.forgetOnDisk(names))
            effects.publishStateChanges(in: state)
        }
    }

    /// The results store's name for a photo's `variant`: the hash of its cache key (its URL), and for
    /// sepia results the settings that shaped them, so a change of height or intensity is not served stale.
    static func diskKey(cacheKey: String, variant: ImageVariant, configuration: PipelineConfiguration) -> String {
        let hash = ContentHash.of(cacheKey)
        let intensity = Int((configuration.sepiaIntensity * 100).rounded())
        return switch variant {
        case .original: "\(hash)-original"
        case .thumbnail: "\(hash)-thumbnail-h\(configuration.thumbnailHeight)-i\(intensity)"
        case .preview: "\(hash)-preview-h\(configuration.thumbnailHeight)"
        case .sepia: "\(hash)-sepia-i\(intensity)"
        case .partial: "\(hash)-partial"  // never written: see ArrivedPreviews
        }
    }

    func diskKey(_ index: Int, _ variant: ImageVariant) -> String {
        Self.diskKey(cacheKey: entries[index].cacheKey, variant: variant, configuration: configuration)
    }

    /// Keeps `image` as photo `index`'s `variant`: in memory now, in the results store once the lock
    /// is released. Under the lock.
    func keep(_ image: CachedImage, as variant: ImageVariant, of index: Int, in state: inout PipelineState, _ effects: inout Effects) {
        let key = ImageCache.Key(index: index, variant: variant)
        effects.storeChanged(state.store.keep(image, as: key))
        guard results != nil else { return }
        let name = diskKey(index, variant)
        state.store.markOnDisk(key, as: name)
        effects.write(image.data, as: name)
    }
}
