import Foundation

extension PhotoChannel {
    /// One tick: every viewer that has opened its stream gets its queue counts and everyone the
    /// totals when they changed, and quiet streams a heartbeat. (A viewer gets both in the snapshot
    /// of its first stream; viewers that left are dropped by `ViewerRegistry.dropIdle`.)
    func tick(now: ContinuousClock.Instant) {
        let sessions = viewers.streaming(in: self)
        if let pipeline = library.pipeline {
            let stats = stats(of: pipeline)
            if noteSent(stats) {
                let payload = EventOutbox.Payload(name: .stats, data: EventPayloads.json(stats))
                sendToAll(payload, sessions)
            }
            // Viewers whose counts are alike (a crowd's new and idle ones) share one encoding.
            var last: (queues: EventPayloads.Queues, data: Data)?
            for session in sessions {
                if let queues = session.queuesIfChanged() {
                    let data = last.flatMap { $0.queues == queues ? $0.data : nil } ?? EventPayloads.json(queues)
                    last = (queues, data)
                    session.outbox.enqueue(.init(name: .queues, data: data))
                }
            }
        }
        let idleSince = now - settings.heartbeat
        sessions.forEach { $0.outbox.heartbeatIfIdle(since: idleSince) }
    }
}
