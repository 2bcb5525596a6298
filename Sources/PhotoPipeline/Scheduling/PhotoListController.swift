import Synchronization

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

    /// The rows last reported visible (to tell a short move from a jump).
    private let visible = Mutex<ClosedRange<Int>?>(nil)

    /// Creates a viewer's controller; the eager strategy asks for every row at once, in list order.
    public init(pipeline: PhotoPipeline, viewer: ViewerID = .random(), strategy: SchedulingStrategy = .prefetch(margin: 3)) {
        self.pipeline = pipeline
        self.viewer = viewer
        self.strategy = strategy
        if strategy == .eager {
            pipeline.want(pipeline.records.indices.map { ($0, .background) }, for: viewer)
        }
    }

    /// The rows last reported visible.
    public var visibleRows: ClosedRange<Int>? { visible.withLock { $0 } }

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

    /// The tutorial's `resumeAllOperations`.
    public func resumeAllOperations() {
        pipeline.setSuspended(false, for: viewer)
    }

    /// Cancels everything this viewer asked for; work another viewer wants goes on.
    public func cancelAllOperations() {
        pipeline.cancelAll(for: viewer)
    }

    /// The tutorial's `loadImagesForOnscreenCells`, run when scrolling stops: cancel pending
    /// operations of rows no longer wanted (aborting transfers in flight), start operations for
    /// visible rows without one (top to bottom), then the prefetch margin, then resume.
    public func loadImagesForOnscreenRows(_ visible: ClosedRange<Int>) {
        let previous = self.visible.withLock { last in
            defer { last = visible }
            return last
        }
        guard strategy != .eager else {
            pipeline.setWanted(
                pipeline.records.indices.map { ($0, .background) }, for: viewer, visible: visible, suspended: false)
            return
        }
        guard strategy != .serial else {
            // Nothing is given up: the rows on screen join what it already wants, behind it.
            pipeline.want(rowsToLoad(visible), for: viewer, visible: visible)
            return
        }
        pipeline.setWanted(rowsToLoad(visible, after: previous), for: viewer, visible: visible, suspended: false)
    }

    /// The viewer left: cancel what only it wanted and forget it.
    public func close() {
        pipeline.removeViewer(viewer)
    }

    /// Visible rows top to bottom, then the prefetch margin, only where the viewer is likely to look
    /// next: ahead of a short move (reading), below at the start, and nowhere after a jump of more than
    /// a screen (a flick or a jump says nothing about where the eye goes next; rows fetched around it
    /// are mostly waste).
    func rowsToLoad(_ visible: ClosedRange<Int>, after previous: ClosedRange<Int>? = nil) -> [PhotoPipeline.RowRequest] {
        let count = pipeline.records.count
        guard count > 0, visible.lowerBound < count, visible.upperBound >= 0 else { return [] }
        let onScreen = visible.clamped(to: 0...(count - 1))
        let moved = previous.map { onScreen.lowerBound - $0.lowerBound } ?? 0
        let margin = abs(moved) > onScreen.count ? 0 : strategy.prefetchMargin
        let ahead = moved < 0
            ? (max(0, onScreen.lowerBound - margin)..<onScreen.lowerBound).reversed()
            : Array((onScreen.upperBound + 1)..<min(count, onScreen.upperBound + 1 + margin))
        return onScreen.map { ($0, RowPriority.visible) } + ahead.map { ($0, .prefetch) }
    }
}
