import Locking

/// One viewer's viewport reports, handled one at a time and coalesced to the latest: a report that
/// arrives while another is being handled waits, and one that arrives after it replaces it, so a
/// report superseded before it is handled is dropped. A viewer that reports faster than its reports
/// can be handled costs one report's work at a time, never a backlog.
final class LatestReport<Report: Sendable>: Sendable {
    private struct State {
        var handling = false
        var waiting: Report?
        var dropped = 0
    }

    /// Lock order: a leaf.
    private let state = Locked(State())

    init() {}

    /// Reports dropped so far because a later one replaced them before they were handled.
    var droppedCount: Int { state.withLock { $0.dropped } }

    /// Hands `report` in. True: the caller handles reports now (`take` until it returns nil); false:
    /// the caller handling reports already will take this one, unless a later one replaces it.
    func offer(_ report: Report) -> Bool {
        state.withLock { state in
            if state.waiting != nil { state.dropped += 1 }
            state.waiting = report
            defer { state.handling = true }
            return !state.handling
        }
    }

    /// The report to handle next; nil when none waits, and the handling ends.
    func take() -> Report? {
        state.withLock { state in
            guard let report = state.waiting.take() else {
                state.handling = false
                return nil
            }
            return report
        }
    }
}
