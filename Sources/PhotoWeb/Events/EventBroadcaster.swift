import Foundation
import Logging
import PhotoPipeline

/// Fans the pipeline's events out to every viewer's outbox, and on a steady tick sends each viewer
/// its queue counts, everyone the server totals, heartbeats to quiet streams, and drops viewers
/// that left. (The memory monitor is `PhotoServer`'s.)
///
/// Each event's JSON is encoded once and shared by all outboxes. A photo's update goes only to the
/// viewers whose list is near that row.
struct EventBroadcaster: Sendable {
    let viewers: ViewerRegistry
    let library: PhotoLibrary
    /// The totals each tick sends, built as `GET /api/stats` builds them.
    let totals: ServerTotals
    let tick: Duration
    let heartbeat: Duration
    let logger: Logger

    /// Forwards `pipeline`'s events until its stream ends or the task is cancelled.
    func forwardEvents(of pipeline: PhotoPipeline) async {
        var expected: UInt64?
        for await event in pipeline.events.subscribe(bufferLimit: 100_000) {
            if let expected, event.sequence != expected {
                // The broadcaster fell behind and events were dropped: everyone starts from a snapshot.
                viewers.all.forEach { $0.outbox.requireSnapshot() }
            }
            expected = event.sequence + 1
            if case .operation(let operation) = event.kind {
                forward(operation, of: event)
                continue
            }
            if case .photo(let index, .failed(let reason, let detail)) = event.kind {
                logger.warning("photo failed", metadata: [
                    "index": "\(index)", "name": "\(pipeline.entries[index].name)", "reason": "\(reason)", "detail": "\(detail)",
                ])
            }
            let payload = Self.payload(of: event)
            // A photo's update goes only to viewers whose list is near it (see ViewerSession.follow).
            for session in viewers.all where payload.row.map(session.wants) ?? true {
                session.outbox.enqueue(payload)
            }
        }
    }

    /// Sends an operation's start or end to every viewer, marked `mine` for those it was done for.
    /// Two encodings, each made once.
    private func forward(_ operation: OperationEvent, of event: PipelineEvent) {
        let others = Self.payload(of: event)
        var own: EventOutbox.Payload?
        for session in viewers.all {
            guard operation.viewers.contains(session.id) else {
                session.outbox.enqueue(others)
                continue
            }
            if own == nil { own = Self.payload(of: event, mine: true) }
            session.outbox.enqueue(own ?? others)
        }
    }

    /// The event a viewer is sent for `event`; an operation says whether it was `mine`, done for that viewer.
    static func payload(of event: PipelineEvent, mine: Bool = false) -> EventOutbox.Payload {
        switch event.kind {
        case .photo(let index, let state): .photo(index, state)
        case .preview(let index): .photo(index, .filtering, preview: true)
        case .partialPreview(let index, let sequence, let state): .partialPreview(index, state, sequence: sequence)
        case .operation(let operation):
            .init(name: .operation, data: EventPayloads.json(EventPayloads.Operation(operation, time: event.time, mine: mine)))
        }
    }

    /// Runs the periodic work until the task is cancelled.
    func runTicks() async {
        var lastStats: EventPayloads.Stats?
        while !Task.isCancelled {
            do { try await Task.sleep(for: tick) } catch { return }
            let sessions = viewers.all
            if let pipeline = library.pipeline {
                let stats = totals.stats(of: pipeline)
                if ServerTotals.changed(stats, from: lastStats) {
                    lastStats = stats
                    let payload = EventOutbox.Payload(name: .stats, data: EventPayloads.json(stats))
                    sessions.forEach { $0.outbox.enqueue(payload) }
                }
                for session in sessions {
                    if let queues = session.queuesIfChanged() {
                        session.outbox.enqueue(.init(name: .queues, data: EventPayloads.json(queues)))
                    }
                }
            }
            let idleSince = ContinuousClock.now - heartbeat
            sessions.forEach { $0.outbox.heartbeatIfIdle(since: idleSince) }
            for session in viewers.dropIdle() {
                logger.debug("viewer left", metadata: ["viewer": "\(session.id)", "viewers": "\(viewers.count)"])
            }
        }
    }
}
