import Foundation
import PhotoPipeline
import Locking

/// One lane of a lab: a pipeline of its own (own memory cache, no disk cache, own queue widths)
/// driven by its own viewer through the usual `GET /events` and `POST /api/viewport`, and the
/// times of its scroll stops. A `browser` lane has none of these: the page runs it alone.
final class LabLane: Sendable {
    let kind: LabRequest.Lane
    /// The lane's viewer, for server lanes.
    let session: ViewerSession?
    let pipeline: PhotoPipeline?
    let stops = LabStops()

    private struct State {
        var forwarder: Task<Void, Never>?
        var lastStats: EventPayloads.Stats?
    }

    /// Lock order: a leaf.
    private let state = Locked(State())

    /// A browser lane.
    init() {
        kind = .browser
        session = nil
        pipeline = nil
    }

    /// A server lane following `strategy` over `entries`, its pipeline made with `configuration`.
    init(strategy: SchedulingStrategy, entries: [PhotoEntry], configuration: PipelineConfiguration) {
        kind = .server(strategy)
        let pipeline = PhotoPipeline(entries: entries, configuration: configuration)
        self.pipeline = pipeline
        let stops = stops
        // Subscribed before any work starts (an eager controller asks for every row as it is made).
        let events = pipeline.events.subscribe(bufferLimit: 100_000)
        let session = ViewerSession(id: .random(), outbox: EventOutbox(), ownPipeline: pipeline) { rows in
            stops.stopped(on: rows, done: Self.allDone(rows, in: pipeline))
            // A row that finished between the check and the stop being kept sent its event too early.
            if stops.waiting == rows, Self.allDone(rows, in: pipeline) { stops.completed(rows) }
        }
        self.session = session
        session.choose(strategy)
        let forwarder = Task { await Self.forward(events, of: pipeline, to: session, stops: stops) }
        state.withLock { $0.forwarder = forwarder }
        _ = session.controller(on: pipeline, strategy: strategy)
    }

    /// The viewer's id, for server lanes.
    var viewer: ViewerID? { session?.id }

    /// Sends the lane's viewer its queue counts and totals when they changed, and a heartbeat when quiet.
    func tick(heartbeatSince: ContinuousClock.Instant) {
        guard let session, let pipeline else { return }
        if let queues = session.queuesIfChanged() {
            session.outbox.enqueue(.init(name: .queues, data: EventPayloads.json(queues)))
        }
        let stats = EventPayloads.Stats(lane: pipeline)
        let changed = state.withLock { state in
            defer { state.lastStats = stats }
            return state.lastStats != stats
        }
        if changed { session.outbox.enqueue(.init(name: .stats, data: EventPayloads.json(stats))) }
        session.outbox.heartbeatIfIdle(since: heartbeatSince)
    }

    /// Whether the lane's viewer has had no event stream for `timeout` (or never opened one within
    /// `connectTimeout`); its stream is closed if so.
    func closeIfIdle(now: ContinuousClock.Instant, timeout: Duration, connectTimeout: Duration) -> Bool {
        session?.outbox.closeIfIdle(now: now, timeout: timeout, connectTimeout: connectTimeout) ?? false
    }

    /// Ends the lane: its viewer leaves, its work is cancelled (transfers aborted) and its events end.
    func close() {
        session?.close()
        pipeline?.shutdown()
        state.withLock { $0.forwarder }?.cancel()
    }

    /// Forwards the lane pipeline's events to its viewer and ends the waiting stop once its rows are done.
    private static func forward(
        _ events: AsyncStream<PipelineEvent>, of pipeline: PhotoPipeline, to session: ViewerSession, stops: LabStops
    ) async {
        for await event in events {
            // A lane's pipeline works for its one viewer: its operations are that viewer's own.
            session.outbox.enqueue(EventBroadcaster.payload(of: event, mine: true))
            if case .photo(let index, let state) = event.kind, state.isFinal,
               let rows = stops.waiting, rows.contains(index), allDone(rows, in: pipeline) {
                stops.completed(rows)
            }
        }
    }

    /// Whether every row of `rows` is sepia or failed.
    private static func allDone(_ rows: ClosedRange<Int>, in pipeline: PhotoPipeline) -> Bool {
        pipeline.records(in: rows).allSatisfy { $0.state.isFinal }
    }
}
