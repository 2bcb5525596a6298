import Locking

/// When the answers to one viewer's viewport reports may go: at most one a pace on each connection.
///
/// A report is taken (its effect) as it arrives; only its answer waits. A report that arrives within
/// `interval` of the last answer is answered when the interval has passed, and one that arrives while
/// an answer is held replaces it in that answer's place: both go at the same time, never a queue. A
/// connection is read no further while its answer is held, so a client that reports as fast as it is
/// answered (a presenter pipelining reports) is answered `1 / interval` times a second on each
/// connection, whatever it sends, and its reports cost the server that many. A page reports at most
/// every `ScrollMotion.reportInterval` in a scroll and one at a time, so its answers do not wait.
final class ReportPace: Sendable {
    /// The least time between two answers to one viewer's reports: a quarter of the page's report
    /// interval (100 ms), so a page's reports are outside it.
    static let interval: Duration = .milliseconds(25)

    /// The time of the last answer given or held: later than now while one is held. Lock order: a leaf.
    private let last = Locked<ContinuousClock.Instant?>(nil)

    init() {}

    /// When the answer to a report taken `now` goes: `now` outside the pace, else when the pace has
    /// passed (with an answer already held, at its time). `holding` false: nil instead of a later time,
    /// and nothing is recorded (the caller answers only at once).
    func answer(at now: ContinuousClock.Instant, holding: Bool = true) -> ContinuousClock.Instant? {
        last.withLock { last in
            let at: ContinuousClock.Instant
            switch last {
            case let held? where held > now:
                at = held  // an answer is held: this one replaces it in its place
            case let given? where now < given + Self.interval:
                at = given + Self.interval
            default:
                at = now
            }
            guard holding || at == now else { return nil }
            last = at
            return at
        }
    }
}
