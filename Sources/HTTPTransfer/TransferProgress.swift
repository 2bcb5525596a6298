/// How much of a body has arrived; reported on the transfer loop's thread.
public struct TransferProgress: Sendable, Equatable {
    /// Body bytes held so far, those resumed from an earlier attempt included.
    public var received: Int64
    /// The whole body's declared length, or nil when the origin did not declare one.
    public var expected: Int64?
    /// Bytes of `received` that an earlier, cancelled attempt fetched: this attempt resumed after them.
    public var resumedFrom: Int64

    /// Progress of `received` out of `expected` bytes, the first `resumedFrom` of them from an earlier attempt.
    public init(received: Int64, expected: Int64?, resumedFrom: Int64 = 0) {
        self.received = received
        self.expected = expected
        self.resumedFrom = resumedFrom
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
