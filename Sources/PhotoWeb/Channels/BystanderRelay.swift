import Locking
import PhotoPipeline

/// Operations done for other viewers, for a channel's bystanders (every viewer's timeline shows the
/// whole server's work), gathered as the forwarder meets them and handed on once a pace in one batch
/// each. The viewers an operation was done for get it from the forwarder at once; a crowd of a
/// thousand bystanders then costs a thousand short steps per pace rather than per operation, and the
/// forwarder, which carries the rows' states the driving viewers wait for, never waits for a crowd.
///
/// Lock order: a leaf. Outboxes and the registry are called after it is released.
final class BystanderRelay: Sendable {
    /// One operation's start or end as the others see it, and whom it was done for (sent it already).
    struct Item: Sendable {
        let payload: EventOutbox.Payload
        let viewers: Set<ViewerID>
    }

    let pace: Duration
    /// Items one pace may gather: far more than a busy list makes (hundreds a second). Past it the
    /// rest of the pace's operations are left out of bystanders' timelines (the rows' states are not).
    let limit: Int
    private let gathered = Locked([Item]())

    init(pace: Duration, limit: Int = 20_000) {
        self.pace = pace
        self.limit = limit
    }

    /// Gathers an operation's event for the next hand-on.
    func add(_ payload: EventOutbox.Payload, doneFor viewers: Set<ViewerID>) {
        gathered.withLock { items in
            if items.count < limit { items.append(Item(payload: payload, viewers: viewers)) }
        }
    }

    /// Hands what was gathered on to `sessions`, each the operations not done for it.
    func handOn(to sessions: [ViewerSession]) {
        let items = gathered.withLock { items in
            defer { items = [] }
            return items
        }
        guard !items.isEmpty else { return }
        let everyone = items.map(\.payload)
        for session in sessions {
            let batch = items.contains { $0.viewers.contains(session.id) }
                ? items.filter { !$0.viewers.contains(session.id) }.map(\.payload) : everyone
            if !batch.isEmpty { session.outbox.enqueue(contentsOf: batch) }
        }
    }

    /// Hands on once a pace until cancelled: `bystanders` says who gets them now.
    func run(bystanders: @Sendable () -> [ViewerSession]) async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: pace) } catch { return }
            handOn(to: bystanders())
        }
    }
}
