import Foundation
import PhotoPipeline
import Locking

/// One viewer (a browser tab, a script, a lab lane): its controller on its channel's pipeline and its outbox.
final class ViewerSession: Sendable {
    let id: ViewerID
    let outbox: EventOutbox
    /// The list it drives: the server's, or a lab lane's.
    let channel: PhotoChannel
    /// The client whose place it holds (`ClientAddress.group`); nil for a lab lane's.
    let client: String?

    private struct State {
        var controller: PhotoListController?
        var lastQueues: EventPayloads.Queues?
        /// The rows whose updates this viewer is sent: around its last viewport. Nil (everything)
        /// until it reports one.
        var interest: ClosedRange<Int>?
        /// Before it reports a viewport: the rows its snapshot covered (the rest it knows nothing of).
        var covered: ClosedRange<Int>?
        /// The strategy this viewer asked for (its tab's URL or control); nil: the server's default.
        var chosen: SchedulingStrategy?
        /// The pipeline its controllers act on, kept while it has none (hidden): it keeps the record
        /// of this viewer's own work until the viewer leaves.
        var pipeline: PhotoPipeline?
        /// The viewer left: no controller is made for it any more.
        var closed = false
    }

    /// Rows beyond each edge of the viewport that are kept up to date: a scroll this far lands on
    /// rows already current, and fan-out does not grow with every viewer for every photo.
    static let interestMargin = 100

    /// This viewer's viewport reports, handled one at a time, coalesced to the latest.
    let reports = LatestReport<ViewportReport>()

    /// When the answers to this viewer's reports may go (`ReportPace`).
    let pace = ReportPace()

    /// Lock order: a leaf. The controller and the pipeline are called after it is released.
    private let state = Locked(State())

    init(id: ViewerID, outbox: EventOutbox, channel: PhotoChannel, client: String? = nil) {
        self.id = id
        self.outbox = outbox
        self.channel = channel
        self.client = client
    }

    /// The viewer's controller, made on first use once the list is loaded, following the strategy
    /// the viewer chose or else `strategy` (the server's default). Made outside this session's lock
    /// (an eager controller asks the pipeline for every row as it is made); a controller of another
    /// strategy is replaced, and what only it wanted is cancelled. Nil once the viewer has left.
    func controller(on pipeline: PhotoPipeline, strategy defaultStrategy: SchedulingStrategy) -> PhotoListController? {
        // Decided under the lock: keep the controller, or take out one of another strategy.
        let (current, replaced, wanted) = state.withLock { state -> (PhotoListController?, PhotoListController?, SchedulingStrategy) in
            let wanted = state.chosen ?? defaultStrategy
            guard !state.closed else { return (nil, nil, wanted) }
            guard let controller = state.controller else { return (nil, nil, wanted) }
            if controller.strategy == wanted { return (controller, nil, wanted) }
            state.controller = nil
            state.lastQueues = nil
            return (nil, controller, wanted)
        }
        if let current { return current }
        // Done after it: the old controller's work is given up before the new one asks for any
        // (both speak for the same viewer).
        replaced?.close()
        guard !isClosed else { return nil }
        let made = PhotoListController(pipeline: pipeline, viewer: id, strategy: wanted)
        let kept = state.withLock { state -> PhotoListController? in
            guard !state.closed else { return nil }
            state.pipeline = pipeline
            if let controller = state.controller { return controller }
            state.controller = made
            return made
        }
        // It left while the controller was made (an eager one asks for rows as it is made).
        if kept == nil { release(made, on: pipeline) }
        return kept
    }

    /// Tells the viewer's controller what `body` says, unless the viewer has left. A viewer that leaves
    /// while `body` runs (a report racing its `DELETE` or its idle timeout) has what `body` asked for
    /// given up after it: `close` marks it closed before it gives its work up, so either `close` sees
    /// `body`'s wants or this sees the mark.
    func withController(on pipeline: PhotoPipeline, strategy defaultStrategy: SchedulingStrategy, _ body: (PhotoListController) -> Void) {
        guard let controller = controller(on: pipeline, strategy: defaultStrategy) else { return }
        body(controller)
        if isClosed { release(controller, on: pipeline) }
    }

    /// Whether the viewer has left.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Gives up what `controller` asked for on this viewer's behalf and forgets what its work cost.
    private func release(_ controller: PhotoListController, on pipeline: PhotoPipeline) {
        controller.close()
        pipeline.forgetWork(of: id)
    }

    /// Records the strategy this viewer asked for; the next `controller(on:strategy:)` follows it.
    func choose(_ strategy: SchedulingStrategy?) {
        guard let strategy else { return }
        state.withLock { $0.chosen = strategy }
    }

    /// The strategy this viewer follows, given the server's default.
    func strategy(default defaultStrategy: SchedulingStrategy) -> SchedulingStrategy {
        state.withLock { $0.chosen ?? defaultStrategy }
    }

    /// The viewer's controller, if it has one yet.
    var existingController: PhotoListController? {
        state.withLock { $0.controller }
    }

    /// The queue counts if they changed since last sent (for the periodic `queues` event).
    func queuesIfChanged() -> EventPayloads.Queues? {
        takeQueues(onlyIfChanged: true)
    }

    /// The viewer's queue counts now (for a snapshot).
    func currentQueues() -> EventPayloads.Queues? {
        takeQueues(onlyIfChanged: false)
    }

    /// Reads the counts and this viewer's work (outside this session's lock: the pipeline takes its
    /// own) and remembers them as sent.
    private func takeQueues(onlyIfChanged: Bool) -> EventPayloads.Queues? {
        guard let controller = state.withLock({ $0.controller }) else { return nil }
        let queues = EventPayloads.Queues(controller.queueStatus, strategy: controller.strategy)
        return state.withLock { state in
            if onlyIfChanged, queues == state.lastQueues { return nil }
            state.lastQueues = queues
            return queues
        }
    }

    /// Whether updates of row `index` are sent to this viewer.
    func wants(_ index: Int) -> Bool {
        state.withLock { $0.interest?.contains(index) ?? true }
    }

    /// Those of `payloads` this viewer wants (about no row, or a row it keeps up to date): `wants`
    /// for a batch, in one look at its rows.
    func wanted(_ payloads: [EventOutbox.Payload]) -> [EventOutbox.Payload] {
        let interest = state.withLock { $0.interest }
        guard let interest else { return payloads }
        return payloads.filter { $0.row.map(interest.contains) ?? true }
    }

    /// Moves the rows of interest around `visible`; returns the rows newly inside, whose current
    /// state the viewer must be sent (it missed their updates while they were outside, or its
    /// snapshot did not cover them).
    func follow(_ visible: ClosedRange<Int>, rowCount: Int, margin: Int = interestMargin) -> [Int] {
        let interest = Self.rows(around: visible, rowCount: rowCount, margin: margin)
        let previous = state.withLock { state in
            defer { state.interest = interest }
            return state.interest ?? state.covered
        }
        guard let previous else { return Array(interest) }
        return interest.filter { !previous.contains($0) }
    }

    /// The rows a snapshot for this viewer covers: its rows of interest, or before it reported any,
    /// the top of the list (they are remembered as covered); nil for an empty list.
    func snapshotRows(rowCount: Int) -> ClosedRange<Int>? {
        guard rowCount > 0 else { return nil }
        return state.withLock { state in
            if let interest = state.interest { return interest.clamped(to: 0...(rowCount - 1)) }
            let top = Self.rows(around: 0...0, rowCount: rowCount, margin: Self.interestMargin)
            state.covered = top
            return top
        }
    }

    /// `visible` and `margin` rows beyond each edge, within the list.
    private static func rows(around visible: ClosedRange<Int>, rowCount: Int, margin: Int) -> ClosedRange<Int> {
        let lower = max(0, visible.lowerBound - margin)
        let upper = min(max(rowCount - 1, lower), visible.upperBound + margin)
        return lower...upper
    }

    /// The viewer's tab is hidden: its controller goes, and with it the work only it wanted (eager
    /// or not); the next `controller(on:strategy:)` makes a new one where the viewer was. Returns
    /// its queues now (empty), for the page's figures.
    func hide(default defaultStrategy: SchedulingStrategy) -> EventPayloads.Queues {
        let (controller, pipeline) = state.withLock { state in
            state.lastQueues = nil
            return (state.controller.take(), state.pipeline)
        }
        controller?.close()
        // Nothing is wanted for it now; what its work cost so far stays.
        let status = pipeline?.queueStatus(for: id) ?? ViewerQueueStatus()
        return state.withLock { state in
            let queues = EventPayloads.Queues(status, strategy: state.chosen ?? defaultStrategy)
            state.lastQueues = queues
            return queues
        }
    }

    /// The viewer left: cancel what only it wanted, and forget what its work cost. Marked closed
    /// first, under the lock (see `withController`).
    func close() {
        let (controller, pipeline) = state.withLock { state in
            state.closed = true
            return (state.controller, state.pipeline)
        }
        controller?.close()
        pipeline?.forgetWork(of: id)
        outbox.close()
    }
}
