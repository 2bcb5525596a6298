import Locking
import PhotoPipeline

/// A channel's events for the followers of its presentations, gathered as the forwarder meets them
/// and handed on once a pace: the updates of one row folded to the latest, then each follower given
/// the batch in one step (its rows only, its presenter's operations marked `mine`). So a thousand
/// followers cost a thousand short steps per pace rather than per event, and the forwarder, which
/// serves the viewers that drive work, never waits for an audience.
///
/// Lock order: a leaf. Outboxes, sessions and the registry are called after it is released.
final class FollowerRelay: Sendable {
    /// One event as gathered: a payload (sent to followers near its row), or an operation's start or
    /// end in its two encodings (for followers whose presenter it was done for, and for the others).
    enum Item: Sendable {
        case payload(EventOutbox.Payload)
        case operation(others: EventOutbox.Payload, own: EventOutbox.Payload, viewers: Set<ViewerID>)
    }

    private struct Gathered {
        var items: [Item] = []
        /// More came in one pace than `limit`: followers start again from a snapshot instead.
        var overflowed = false
        /// Who was handed the last batch: one of them that no longer follows (it broke away, or its
        /// presentation ended) still gets this one's rows, gathered while the forwarder passed it by.
        var lastRecipients: [ViewerSession] = []
    }

    let pace: Duration
    /// Items one pace may gather: far more than a busy list makes (hundreds a second).
    let limit: Int
    private let gathered = Locked(Gathered())

    init(pace: Duration, limit: Int = 20_000) {
        self.pace = pace
        self.limit = limit
    }

    /// Gathers `item` for the next hand-on.
    func add(_ item: Item) {
        gathered.withLock { gathered in
            guard !gathered.overflowed else { return }
            if gathered.items.count >= limit {
                gathered.items = []
                gathered.overflowed = true
            } else {
                gathered.items.append(item)
            }
        }
    }

    /// Hands what was gathered on to `followers` (each follower's presenter in `presenters`), and to
    /// those of the last hand-on that follow no more.
    func handOn(to followers: [ViewerSession], presenters: [ViewerID: ViewerID]) {
        let taken = gathered.withLock { gathered -> Gathered in
            defer { gathered = Gathered(lastRecipients: followers) }
            return gathered
        }
        let recipients = followers + taken.lastRecipients.filter { presenters[$0.id] == nil }
        if taken.overflowed {
            recipients.forEach { $0.outbox.requireSnapshot() }
            return
        }
        guard !taken.items.isEmpty, !recipients.isEmpty else { return }
        let items = Self.folded(taken.items)
        for follower in recipients {
            // One that follows no more is sent rows' states only: the forwarder may have sent it some
            // of these operations already, and a row's latest state twice is harmless.
            let presenter = presenters[follower.id]
            let batch = items.compactMap { item -> EventOutbox.Payload? in
                switch item {
                case .payload(let payload): payload
                case .operation(let others, let own, let viewers): presenter.map { viewers.contains($0) ? own : others }
                }
            }
            follower.outbox.enqueue(contentsOf: follower.wanted(batch))
        }
    }

    /// `items` with each row's updates folded to the latest (where the latest came, as an outbox's
    /// queue folds them); previews of arrived bytes and operations are kept, in order.
    static func folded(_ items: [Item]) -> [Item] {
        var latest: [OutgoingEvent.CoalescingKey: Int] = [:]
        for (position, item) in items.enumerated() {
            if case .payload(let payload) = item, let key = OutgoingEvent.key(for: payload.name, photoIndex: payload.photoIndex) {
                latest[key] = position
            }
        }
        return items.enumerated().compactMap { position, item in
            guard case .payload(let payload) = item,
                  let key = OutgoingEvent.key(for: payload.name, photoIndex: payload.photoIndex) else { return item }
            return latest[key] == position ? item : nil
        }
    }

    /// Hands on once a pace until cancelled: `audience` says who follows now.
    func run(audience: @Sendable () -> (followers: [ViewerSession], presenters: [ViewerID: ViewerID])) async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: pace) } catch { return }
            let (followers, presenters) = audience()
            handOn(to: followers, presenters: presenters)
        }
    }
}
