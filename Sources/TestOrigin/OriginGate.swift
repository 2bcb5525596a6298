import Locking

/// Holds a `.gated` response until the test lets each step go: the head, then the first bytes,
/// then the rest. A test that needs a transfer "still in flight" holds the rest instead of betting
/// that a slow body outlasts the test.
public final class OriginGate: Sendable {
    /// The parts of a response, in the order they are sent.
    public enum Step: Int, Sendable, Comparable {
        case headers = 1, firstBytes, rest

        public static func < (lhs: Step, rhs: Step) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private let opened = Locked(0)

    /// A gate with every step closed.
    public init() {}

    /// Lets `step` (and every step before it) be sent; any thread.
    public func open(_ step: Step) {
        opened.withLock { $0 = max($0, step.rawValue) }
    }

    /// Lets the whole response be sent.
    public func openAll() {
        open(.rest)
    }

    func isOpen(_ step: Step) -> Bool {
        opened.withLock { $0 >= step.rawValue }
    }
}
