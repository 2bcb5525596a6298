import PhotoPipeline

extension PhotoChannel {
    /// The events a new stream of `session` starts with: the list's status, the rows near the
    /// viewer's viewport (`ViewerSession.snapshotRows`: a stream costs the same at any list length)
    /// with the list's length and state counts, the viewer's queues and the channel's totals.
    /// `defaultStrategy`: the server's, for a viewer that chose none.
    func snapshot(for session: ViewerSession, defaultStrategy: SchedulingStrategy) -> [EventOutbox.Payload] {
        var payloads: [EventOutbox.Payload] = [.init(name: .source, data: EventPayloads.json(library.source))]
        guard let pipeline = library.pipeline else { return payloads }
        let strategy = session.strategy(default: defaultStrategy)
        let rows = session.snapshotRows(rowCount: pipeline.entries.count).map(pipeline.records(in:)) ?? []
        // A row on screen may have had a preview of its bytes arrived before this stream began.
        let partials = pipeline.arrivedPreviewSequences(in: rows.filter { !$0.state.isFinal }.map(\.index))
        payloads.append(.init(name: .snapshot, data: EventPayloads.json(EventPayloads.Snapshot(
            photos: rows.map { EventPayloads.Photo(index: $0.index, state: $0.state, record: $0, partial: partials[$0.index]) },
            count: pipeline.entries.count, states: pipeline.stateCounts,
            strategy: strategy.name, prefetch: strategy.prefetchMarginForDisplay))))
        if let queues = session.currentQueues() {
            payloads.append(.init(name: .queues, data: EventPayloads.json(queues)))
        }
        payloads.append(.init(name: .stats, data: EventPayloads.json(stats(of: pipeline))))
        return payloads
    }
}
