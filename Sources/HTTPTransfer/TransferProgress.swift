/// How much of a body has arrived; reported on the transfer loop's thread.
public struct TransferProgress: Sendable, Equatable {
    /// Body bytes received so far.
    public var received: Int64
    /// The declared Content-Length, or nil when the origin did not declare one.
    public var expected: Int64?

    /// Progress of `received` out of `expected` bytes.
    public init(received: Int64, expected: Int64?) {
        self.received = received
        self.expected = expected
    }

    /// `received / expected` in 0...1, or nil when the length is unknown.
    public var fraction: Double? {
        guard let expected, expected > 0 else { return nil }
        return min(1, Double(received) / Double(expected))
    }
}

/// Decides which progress updates to pass on: write callbacks arrive every few KB, far more
/// often than anyone can look at, so only each 1% step or 50 ms of progress is reported.
struct ProgressThrottle {
    private static let interval: Duration = .milliseconds(50)
    private var lastReported: (received: Int64, at: ContinuousClock.Instant)?

    /// Whether `progress` is worth reporting now; records it as reported if so.
    mutating func shouldReport(_ progress: TransferProgress, now: ContinuousClock.Instant = .now) -> Bool {
        if let last = lastReported {
            let step = progress.expected.map { max(1, $0 / 100) } ?? .max
            let complete = progress.received == progress.expected
            guard complete || progress.received - last.received >= step || now - last.at >= Self.interval else {
                return false
            }
        }
        lastReported = (progress.received, now)
        return true
    }

    /// Whether bytes arrived since the last reported update (so a final one is still owed).
    func isBehind(_ received: Int64) -> Bool {
        lastReported?.received != received
    }
}
