import Locking
import PhotoPipeline

/// A channel's events for the followers of its presentations, gathered as the forwarder meets them
/// and handed on once a pace: the updates of one row folded to the latest, then each follower given
/// its batch in one step (its presenter's moves and news first, the rows near it, its presenter's
/// operations marked `mine`, then the rows a move brought near). So a thousand followers cost a
/// thousand writes per pace rather than per event or per move, and the forwarder, which serves the
/// viewers that drive work, never waits for an audience. A move is handed on at once, not at the
/// pace's end (`FollowerRelay+Waking`), with what was gathered meanwhile.
///
/// Lock order: a leaf. Outboxes, sessions and the registry are called after it is released.
final class FollowerRelay: Sendable {
    /// One event as gathered: a payload (sent to followers near its row), or an operation's start or
    /// end in its two encodings (for followers whose presenter it was done for, and for the others).
    enum Item: Sendable {
        case payload(EventOutbox.Payload)
        case operation(others: EventOutbox.Payload, own: EventOutbox.Payload, viewers: Set<ViewerID>)
    }

    struct Gathered {
        var items: [Item] = []
        /// What followers are told of their presentations (`tell`), in order.
        var told: [Told] = []
        /// Each presenter's latest move not yet handed on (`move`): one a presenter, whatever it sends.
        var moves: [ViewerID: Move] = [:]
        /// More came in one pace than `limit`: followers start again from a snapshot instead.
        var overflowed = false
        /// Who was handed the last batch: one of them that no longer follows (it broke away, or its
        /// presentation ended) still gets this one's rows, gathered while the forwarder passed it by.
        var lastRecipients: [ViewerSession] = []

        /// Whether one more item or news fits in this pace; marks the pace overflowed when not.
        mutating func makeRoom(limit: Int) -> Bool {
            guard !overflowed else { return false }
            guard items.count + told.count >= limit else { return true }
            items = []
            overflowed = true
            return false
        }
    }

    /// The least time between two hand-ons of rows' events (a move is handed on at once).
    let pace: Duration
    /// The pace grows by this per follower: a hand-on is a write and a flush per follower (with a
    /// thousand at 40 ms, NIO's writes were 30% of the server's CPU in perf), so a thousand followers
    /// are handed on every 250 ms, a hundred every 40 ms (BENCHMARKS, issue 37's last section).
    let pacePerFollower: Duration
    /// The least time between two hand-ons, a move's included (`movePace(for:)`), before it grows
    /// with the audience as the pace does.
    let leastMovePace: Duration
    /// Items one pace may gather: far more than a busy list makes (hundreds a second).
    let limit: Int
    let gathered = Locked(Gathered())
    /// The relay's wait for its next hand-on (`FollowerRelay+Waking`). Lock order: a leaf.
    let alarm = Locked(Alarm())

    init(
        pace: Duration, pacePerFollower: Duration = .microseconds(250), leastMovePace: Duration = .milliseconds(40), limit: Int = 20_000
    ) {
        self.pace = pace
        self.pacePerFollower = pacePerFollower
        self.leastMovePace = leastMovePace
        self.limit = limit
    }

    /// Gathers `item` for the next hand-on.
    func add(_ item: Item) {
        gathered.withLock { gathered in
            if gathered.makeRoom(limit: limit) { gathered.items.append(item) }
        }
    }

    /// Tells `told`'s followers its news with the next hand-on, which is at once when `now` (a move:
    /// the followers' screens wait for it), else at the pace's end (the presenter's queues).
    func tell(_ told: Told, now: Bool) {
        guard !told.followers.isEmpty else { return }
        gathered.withLock { gathered in
            // Past the limit the told news is dropped with the rows: a snapshot carries both.
            if gathered.makeRoom(limit: limit) { gathered.told.append(told) }
        }
        if now { wake() }
    }

    /// Takes what was gathered since the last hand-on; `followers` are its recipients.
    func take(for followers: [ViewerSession]) -> Gathered {
        gathered.withLock { gathered in
            defer { gathered = Gathered(lastRecipients: followers) }
            return gathered
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

    /// The pace for `followers` followers.
    func pace(for followers: Int) -> Duration {
        max(pace, pacePerFollower * followers)
    }

    /// Hands on once a pace (longer for more followers), and after a move as soon as the move pace
    /// allows (`movePace(for:)`), until cancelled: `audience` says who follows now.
    func run(audience: @Sendable () -> (followers: [ViewerSession], presenters: [ViewerID: ViewerID])) async {
        var current = pace
        var least = leastMovePace
        var last: ContinuousClock.Instant?
        while !Task.isCancelled {
            await waitForHandOn(pace: current)
            // A move rang early: the audience still gets at most one batch a move pace.
            if let last, ContinuousClock.now - last < least {
                do { try await Task.sleep(until: last + least, clock: .continuous) } catch { return }
            }
            guard !Task.isCancelled else { return }
            let (followers, presenters) = audience()
            last = .now
            handOn(to: followers, presenters: presenters)
            current = pace(for: followers.count)
            least = movePace(for: followers.count)
        }
    }
}
