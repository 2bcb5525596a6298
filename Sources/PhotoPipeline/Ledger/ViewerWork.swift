import Foundation

/// One viewer's share of the work: what the operations done for it cost, and how much of that went
/// to rows this viewer has not seen (yet). Work another viewer also asked for counts for both: each
/// tab sees what its own scrolling caused, while the shared pipeline did it once.
///
/// A value type kept in the `WorkLedger`, behind the pipeline's lock.
public struct ViewerWork: Sendable, Equatable {
    /// An amount of work, as the `queues` event's `work` and `waste` carry it.
    public struct Amount: Sendable, Encodable, Equatable {
        /// Operations that finished, per queue; and how many were cancelled or failed (both queues).
        public var downloads = 0
        public var filtrations = 0
        /// Cancelled while running (they had started) and before they started (they never ran).
        public var cancelledRunning = 0
        public var cancelledQueued = 0
        public var failed = 0
        public var bytes: Int64 = 0
        public var filterSeconds = 0.0

        /// Every cancelled operation, counted from its two kinds (never stored beside them).
        public var cancelled: Int { cancelledRunning + cancelledQueued }

        public init() {}

        private enum CodingKeys: String, CodingKey {
            case downloads, filtrations, cancelled, cancelledRunning, cancelledQueued, failed, bytes, filterSeconds
        }

        /// The stored figures and `cancelled`, which the page and the event's readers take as given.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(downloads, forKey: .downloads)
            try container.encode(filtrations, forKey: .filtrations)
            try container.encode(cancelled, forKey: .cancelled)
            try container.encode(cancelledRunning, forKey: .cancelledRunning)
            try container.encode(cancelledQueued, forKey: .cancelledQueued)
            try container.encode(failed, forKey: .failed)
            try container.encode(bytes, forKey: .bytes)
            try container.encode(filterSeconds, forKey: .filterSeconds)
        }

        static func += (lhs: inout Amount, rhs: Amount) {
            lhs.downloads += rhs.downloads
            lhs.filtrations += rhs.filtrations
            lhs.cancelledRunning += rhs.cancelledRunning
            lhs.cancelledQueued += rhs.cancelledQueued
            lhs.failed += rhs.failed
            lhs.bytes += rhs.bytes
            lhs.filterSeconds += rhs.filterSeconds
        }

        static func -= (lhs: inout Amount, rhs: Amount) {
            lhs.downloads -= rhs.downloads
            lhs.filtrations -= rhs.filtrations
            lhs.cancelledRunning -= rhs.cancelledRunning
            lhs.cancelledQueued -= rhs.cancelledQueued
            lhs.failed -= rhs.failed
            lhs.bytes -= rhs.bytes
            lhs.filterSeconds = max(0, lhs.filterSeconds - rhs.filterSeconds)
        }
    }

    /// Everything the operations done for this viewer cost: bytes of every transfer (aborted ones
    /// too), CPU of every filtration, and how many of each finished.
    public private(set) var total = Amount()
    /// The part of `total` spent on rows this viewer has not seen yet.
    public private(set) var waste = Amount()
    /// Work once in `waste` whose rows this viewer has seen since (why `waste` went down).
    public private(set) var seenSince = Amount()
    /// `waste` by row, to take a row out once it is seen.
    private var unseen: [Int: Amount] = [:]
    private var seen = IndexSet()

    public init() {}

    /// Counts the end of an operation done for this viewer.
    mutating func add(_ operation: OperationEvent) {
        guard operation.outcome != .started else { return }
        var amount = Amount()
        amount.bytes = operation.bytes ?? 0
        amount.filterSeconds = operation.cpuSeconds ?? 0
        switch operation.outcome {
        case .finished: if operation.queue == .download { amount.downloads = 1 } else { amount.filtrations = 1 }
        case .cancelled:
            // One that never had a track never started (the same rule as `PendingOperations.end`).
            if operation.track == nil { amount.cancelledQueued = 1 } else { amount.cancelledRunning = 1 }
        case .failed: amount.failed = 1
        case .started: break
        }
        guard amount != Amount() else { return }
        total += amount
        if !seen.contains(operation.index) {
            waste += amount
            unseen[operation.index, default: Amount()] += amount
        }
    }

    /// This viewer saw rows `rows`: work on them was not waste.
    mutating func see(_ rows: ClosedRange<Int>) {
        seen.insert(integersIn: rows)
        guard !unseen.isEmpty else { return }
        // Whichever is shorter is walked: the rows seen, or the rows with waste (an eager viewer's
        // can be most of a long list).
        let indices = rows.count < unseen.count ? Array(rows) : unseen.keys.filter(rows.contains)
        for index in indices {
            if let amount = unseen.removeValue(forKey: index) {
                waste -= amount
                seenSince += amount
            }
        }
    }
}
