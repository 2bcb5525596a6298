import Logging
import PhotoPipeline

extension PhotoChannel {
    /// Fans `events` (its pipeline's) out to the channel's viewers: each event's JSON is encoded once
    /// and shared by all outboxes; a photo's update goes only to the viewers whose list is near that
    /// row (`ViewerSession.follow`); a row done is told to `stops`. Followers of a presentation are
    /// served after the viewers that drive work (a presenter's screen never waits behind its audience).
    func forward(_ events: AsyncStream<PipelineEvent>, of pipeline: PhotoPipeline) async {
        var expected: UInt64?
        for await event in events {
            let presenters = presentations?.presenterOfFollowers() ?? [:]
            let sessions = Self.driversFirst(viewers.all(in: self), presenters: presenters)
            if let expected, event.sequence != expected {
                // The forwarder fell behind and events were dropped: everyone starts from a snapshot.
                sessions.forEach { $0.outbox.requireSnapshot() }
            }
            expected = event.sequence + 1
            switch event.kind {
            case .operation(let operation):
                forward(operation, of: event, to: sessions, presenters: presenters)
                continue
            case .photo(let index, .failed(let reason, let detail)) where settings.logsFailures:
                logger.warning("photo failed", metadata: [
                    "index": "\(index)", "name": "\(pipeline.entries[index].name)", "reason": "\(reason)", "detail": "\(detail)",
                ])
            default:
                break
            }
            let payload = Self.payload(of: event)
            for session in sessions where payload.row.map(session.wants) ?? true {
                session.outbox.enqueue(payload)
            }
            if case .photo(let index, let state) = event.kind, state.isFinal {
                stops?.rowFinished(index, in: pipeline)
            }
        }
    }

    /// `sessions` with the followers (keys of `presenters`) last.
    static func driversFirst(_ sessions: [ViewerSession], presenters: [ViewerID: ViewerID]) -> [ViewerSession] {
        guard !presenters.isEmpty else { return sessions }
        var drivers: [ViewerSession] = [], followers: [ViewerSession] = []
        for session in sessions {
            if presenters[session.id] == nil { drivers.append(session) } else { followers.append(session) }
        }
        return drivers + followers
    }

    /// Sends an operation's start or end to every viewer, marked `mine` for those it was done for
    /// (for a follower: done for its presenter, whose story its screen tells). Two encodings, each made once.
    private func forward(
        _ operation: OperationEvent, of event: PipelineEvent, to sessions: [ViewerSession], presenters: [ViewerID: ViewerID]
    ) {
        let others = Self.payload(of: event)
        var own: EventOutbox.Payload?
        for session in sessions {
            guard operation.viewers.contains(presenters[session.id] ?? session.id) else {
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
}
