extension PhotoChannel {
    /// One tick: every viewer gets its queue counts and everyone the totals when they changed, and
    /// quiet streams a heartbeat. (Viewers that left are dropped by `ViewerRegistry.dropIdle`.)
    func tick(now: ContinuousClock.Instant) {
        let sessions = viewers.all(in: self)
        if let pipeline = library.pipeline {
            let stats = stats(of: pipeline)
            if noteSent(stats) {
                let payload = EventOutbox.Payload(name: .stats, data: EventPayloads.json(stats))
                sendToAll(payload, sessions)
            }
            for session in sessions {
                if let queues = session.queuesIfChanged() {
                    session.outbox.enqueue(.init(name: .queues, data: EventPayloads.json(queues)))
                }
            }
        }
        let idleSince = now - settings.heartbeat
        sessions.forEach { $0.outbox.heartbeatIfIdle(since: idleSince) }
    }
}
