import Locking

/// One viewer's list: the tutorial's `ListViewController` without the UI.
///
/// It holds the viewer's viewport and scrolling state and turns them into requests on the shared
/// pipeline: start operations for rows on screen (then a prefetch margin), suspend while scrolling,
/// cancel what scrolled away. Safe to call from any thread.
public final class PhotoListController: Sendable {
    /// The viewer this controller acts for.
    public let viewer: ViewerID
    /// How work is driven for this viewer.
    public let strategy: SchedulingStrategy
    /// The shared engine.
    public let pipeline: PhotoPipeline

    /// The rows last reported visible, how the viewer has been moving, and how far it was read ahead.
    private let viewport = Locked<(visible: ClosedRange<Int>?, motion: ScrollMotion, frontier: ReadAheadFrontier)>(
        (nil, ScrollMotion(), ReadAheadFrontier()))

    /// Creates a viewer's controller; the eager strategy wants every row at once, in list order (as a
    /// cursor over the list: see `PhotoPipeline+Eager`).
    public init(pipeline: PhotoPipeline, viewer: ViewerID = .random(), strategy: SchedulingStrategy = .prefetch(margin: 3)) {
        self.pipeline = pipeline
        self.viewer = viewer
        self.strategy = strategy
        if strategy == .eager {
            pipeline.wantEverything(for: viewer)
        }
    }

    /// The rows last reported visible.
    public var visibleRows: ClosedRange<Int>? { viewport.withLock { $0.visible } }

    /// What this viewer's reports say it is doing: resting, reading or flicking.
    public var motion: ScrollMotion.Kind { viewport.withLock { $0.motion.kind } }

    /// This viewer's view of the queues.
    public var queueStatus: ViewerQueueStatus { pipeline.queueStatus(for: viewer) }

    /// Rows this viewer has operations pending for (the keys of the tutorial's `downloadsInProgress`
    /// and `filtrationsInProgress`, for this viewer).
    public var pendingRows: Set<Int> { pipeline.pendingRows(of: viewer) }

    /// The tutorial's `startOperationsForPhotoRecord`: download if new, filter if downloaded; never a
    /// second operation for a row that already has one.
    public func startOperations(for record: PhotoRecord, priority: RowPriority = .visible) {
        pipeline.want([(record.index, priority)], for: viewer)
    }

    /// The tutorial's `suspendAllOperations` (`scrollViewWillBeginDragging`): nothing new starts for
    /// this viewer; what is running may finish.
    public func suspendAllOperations() {
        guard strategy != .eager, strategy != .serial else { return }
        pipeline.setSuspended(true, for: viewer)
    }

    /// A scroll began (the page's first report of it, before any rows): the tutorial suspends here.
    /// A reader is not suspended (its next in-scroll report judges the move), so its rows on screen
    /// and read ahead go on loading between its steps; anyone else is.
    public func scrollBegan() {
        if case .prefetch = strategy, case .reading = motion { return }
        suspendAllOperations()
    }

    /// The tutorial's `resumeAllOperations`.
    public func resumeAllOperations() {
        pipeline.setSuspended(false, for: viewer)
    }

    /// The tutorial's `loadImagesForOnscreenCells`, run when scrolling stops: cancel pending
    /// operations of rows no longer wanted (aborting transfers in flight), start operations for
    /// visible rows without one (top to bottom), then the rows a reader reaches next, then resume.
    /// The rows on screen at a stop are seen.
    public func loadImagesForOnscreenRows(_ visible: ClosedRange<Int>, at now: ContinuousClock.Instant = .now) {
        let readAhead = observe(visible, at: now).readAhead
        pipeline.see(visible, by: viewer)
        guard strategy != .eager else {
            pipeline.wantEverything(for: viewer)
            return
        }
        guard strategy != .serial else {
            // Nothing is given up: the rows on screen join what it already wants, behind it.
            pipeline.want(rowsToLoad(visible, readAhead: readAhead), for: viewer)
            return
        }
        pipeline.setWanted(rowsToLoad(visible, readAhead: readAhead), for: viewer, suspended: false)
    }

    /// A report made during a scroll, with the rows on screen at that moment. A reader's slow scroll
    /// keeps loading (its rows, then ahead in its direction); anything faster suspends this viewer's
    /// work as the tutorial does while scrolling. A reader's rows are seen; rows passed in a flick,
    /// or at a pace not known yet, are not. Returns what the viewer was judged to be doing.
    @discardableResult
    public func scrolled(to visible: ClosedRange<Int>, at now: ContinuousClock.Instant = .now) -> ScrollMotion.Kind {
        let (kind, readAhead) = observe(visible, at: now)
        if case .reading = kind { pipeline.see(visible, by: viewer) }
        if strategy == .serial {
            // The tutorial's first attempt: every row that comes on screen is loaded, in turn.
            pipeline.want(rowsToLoad(visible, readAhead: readAhead), for: viewer)
            return kind
        }
        guard case .reading = kind, case .prefetch = strategy else {
            suspendAllOperations()
            return kind
        }
        pipeline.setWanted(rowsToLoad(visible, readAhead: readAhead), for: viewer, suspended: false)
        return kind
    }

    /// Takes in a report: what the viewer is doing and how far to read ahead of `visible`.
    private func observe(
        _ visible: ClosedRange<Int>, at now: ContinuousClock.Instant
    ) -> (kind: ScrollMotion.Kind, readAhead: (direction: Int, depth: Int)) {
        viewport.withLock { state in
            state.visible = visible
            let kind = state.motion.observe(visible, at: now)
            let proposed = state.motion.readAhead(of: visible, margin: strategy.prefetchMargin, at: now)
            return (kind, state.frontier.readAhead(of: visible, kind: kind, proposed: proposed))
        }
    }

    /// The viewer left: cancel what only it wanted and forget it.
    public func close() {
        pipeline.removeViewer(viewer)
    }

    /// Visible rows top to bottom, then `readAhead.depth` rows in `readAhead.direction`, nearest first
    /// (none without a prefetch margin: the margin is the least a reader gets, 0 turns reading ahead off).
    func rowsToLoad(_ visible: ClosedRange<Int>, readAhead: (direction: Int, depth: Int)) -> [PhotoPipeline.RowRequest] {
        let count = pipeline.entries.count
        guard count > 0, visible.lowerBound < count, visible.upperBound >= 0 else { return [] }
        let onScreen = visible.clamped(to: 0...(count - 1))
        let depth = strategy.prefetchMargin > 0 ? readAhead.depth : 0
        let ahead = readAhead.direction < 0
            ? (max(0, onScreen.lowerBound - depth)..<onScreen.lowerBound).reversed()
            : Array((onScreen.upperBound + 1)..<min(count, onScreen.upperBound + 1 + depth))
        return onScreen.map { ($0, RowPriority.visible) } + ahead.map { ($0, .prefetch) }
    }
}
