import Logging
import PhotoPipeline

extension PhotoChannel {
    /// Fans `events` (its pipeline's) out to the channel's viewers: each event's JSON is encoded once
    /// and shared by all outboxes; a photo's update goes only to the viewers whose list is near that
    /// row (`ViewerSession.follow`); a row done is told to `stops`. Followers of a presentation get
    /// theirs from the `followerRelay`, once a pace: the viewers that drive work never wait behind an audience.
    func forward(_ events: AsyncStream<PipelineEvent>, of pipeline: PhotoPipeline) async {
        var expected: UInt64?
        var audience = ChannelAudience()
        for await event in events {
            audience.refresh(for: self)
            let relay = audience.hasFollowers ? followerRelay : nil
            let sessions = audience.drivers
            if let expected, event.sequence != expected {
                // The forwarder fell behind and events were dropped: everyone starts from a snapshot.
                audience.all.forEach { $0.outbox.requireSnapshot() }
            }
            expected = event.sequence + 1
            switch event.kind {
            case .operation(let operation):
                forward(operation, of: event, from: pipeline, to: sessions, relay: relay)
                continue
            case .photo(let index, .failed(let reason, let detail)) where settings.logsFailures:
                logger.warning("photo failed", metadata: [
                    "index": "\(index)", "name": "\(pipeline.entries[index].name)", "reason": "\(reason)", "detail": "\(detail)",
                ])
            default:
                break
            }
            let payload = Self.payload(of: event, from: pipeline)
            for session in sessions where payload.row.map(session.wants) ?? true {
                session.outbox.enqueue(payload)
            }
            relay?.add(.payload(payload))
            if case .photo(let index, let state) = event.kind, state.isFinal {
                stops?.rowFinished(index, in: pipeline)
            }
        }
    }

    /// Sends an operation's start or end to every viewer, marked `mine` for those it was done for;
    /// followers get it from `relay`, marked `mine` when done for their presenter. Two encodings, each made once.
    /// With a `bystanderRelay`, only the viewers it was done for get it here; the others, once a pace.
    private func forward(
        _ operation: OperationEvent, of event: PipelineEvent, from pipeline: PhotoPipeline, to sessions: [ViewerSession], relay: FollowerRelay?
    ) {
        let others = Self.payload(of: event, from: pipeline)
        var own: EventOutbox.Payload?
        var reached = 0
        bystanderRelay?.add(others, doneFor: operation.viewers)
        for session in sessions {
            guard operation.viewers.contains(session.id) else {
                if bystanderRelay == nil { session.outbox.enqueue(others) }
                continue
            }
            if own == nil { own = Self.payload(of: event, from: pipeline, mine: true) }
            session.outbox.enqueue(own ?? others)
            reached += 1
        }
        if let relay {
            relay.add(.operation(others: others, own: own ?? Self.payload(of: event, from: pipeline, mine: true), viewers: operation.viewers))
        }
        // Work done for a page that has not opened its stream yet (its first screen, started as it was
        // served): kept for that stream, so its timeline shows it. A no-op for a viewer that has a stream.
        guard reached < operation.viewers.count else { return }
        for id in operation.viewers {
            guard let session = viewers.session(id) else { continue }
            if own == nil { own = Self.payload(of: event, from: pipeline, mine: true) }
            session.outbox.keepForFirstStream(own ?? others)
        }
    }

    /// The event a viewer is sent for `event` of `pipeline`, stamped with when the pipeline made it; an
    /// operation says whether it was `mine`, done for that viewer.
    static func payload(of event: PipelineEvent, from pipeline: PhotoPipeline, mine: Bool = false) -> EventOutbox.Payload {
        var payload = payload(of: event, mine: mine)
        payload.made = EventStamp(pipeline.events.start + .seconds(event.time))
        return payload
    }

    private static func payload(of event: PipelineEvent, mine: Bool) -> EventOutbox.Payload {
        switch event.kind {
        case .photo(let index, let state): .photo(index, state)
        case .preview(let index): .photo(index, .filtering, preview: true)
        case .partialPreview(let index, let sequence, let state): .partialPreview(index, state, sequence: sequence)
        case .operation(let operation):
            .init(name: .operation, data: EventPayloads.json(EventPayloads.Operation(operation, time: event.time, mine: mine)))
        }
    }
}
