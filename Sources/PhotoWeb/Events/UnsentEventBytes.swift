import Synchronization

/// The bytes of events queued for every viewer and not yet taken by its reader: the process-wide
/// budget of slow readers. Each outbox is bounded on its own (`EventOutbox.byteLimit`); past this
/// budget no new stream is opened (`503` with the reason), so many streams that do not read cannot
/// add up to more than it plus one outbox's bound per stream already open.
final class UnsentEventBytes: Sendable {
    /// The bytes past which new streams are refused.
    let budget: Int
    private let total = Atomic(0)

    init(budget: Int) {
        self.budget = budget
    }

    /// The unsent bytes now.
    var bytes: Int { total.load(ordering: .relaxed) }

    /// Whether a new stream may open: the unsent bytes are within the budget.
    var admitsNewStream: Bool { bytes <= budget }

    /// Counts `delta` more unsent bytes (less when negative). Lock-free: called under an outbox's lock.
    func add(_ delta: Int) {
        guard delta != 0 else { return }
        total.add(delta, ordering: .relaxed)
    }
}
