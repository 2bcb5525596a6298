import Foundation
import HTTPTransfer
import Locking

/// `count` deterministic bytes that differ with `seed`, so a mixed-up or shifted body is noticed.
func pattern(_ count: Int, seed: Int = 0) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8 &+ seed &* 7) }
}

/// Milliseconds, for printing measured latencies.
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// What `TransferLoop.start` reports for one transfer.
enum TransferEvent: Sendable {
    case progress(TransferProgress)
    case completed(TransferOutcome, at: ContinuousClock.Instant)
}

/// Counts completions, to check that each transfer completes exactly once.
final class CompletionCounter: Sendable {
    private let count = Locked(0)

    var value: Int { count.withLock { $0 } }

    func increment() {
        count.withLock { $0 += 1 }
    }
}

/// A transfer started for a test: its handle, and its reports to await in order.
struct ObservedTransfer {
    let handle: TransferHandle
    let completions = CompletionCounter()
    private var events: AsyncStream<TransferEvent>.Iterator

    /// Starts a GET of `url` on `loop`, resuming from `resumingFrom` if given.
    init(_ loop: TransferLoop, _ url: String, limits: TransferLimits = .onLoopback, resumingFrom: ResumableData? = nil) {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferEvent.self)
        let completions = completions
        handle = loop.start(url, limits: limits, resumingFrom: resumingFrom) { progress in
            continuation.yield(.progress(progress))
        } completion: { outcome in
            completions.increment()
            continuation.yield(.completed(outcome, at: .now))
        }
        events = stream.makeAsyncIterator()
    }

    /// Waits for the first progress report with bytes in it; nil if the transfer completed first.
    mutating func firstBytes() async -> TransferProgress? {
        while let event = await events.next() {
            switch event {
            case .progress(let progress) where progress.received > 0: return progress
            case .progress: continue
            case .completed: return nil
            }
        }
        return nil
    }

    /// Waits for a progress report of at least `bytes` received; nil if the transfer completed first.
    mutating func progress(atLeast bytes: Int64) async -> TransferProgress? {
        while let event = await events.next() {
            switch event {
            case .progress(let progress) where progress.received >= bytes: return progress
            case .progress: continue
            case .completed: return nil
            }
        }
        return nil
    }

    /// Waits for the completion, collecting the progress reports before it.
    mutating func completion() async -> (result: Result<Data, TransferError>, at: ContinuousClock.Instant, progress: [TransferProgress]) {
        let (outcome, instant, progress) = await outcome()
        return (outcome.result, instant, progress)
    }

    /// Waits for the completion's whole outcome, collecting the progress reports before it.
    mutating func outcome() async -> (outcome: TransferOutcome, at: ContinuousClock.Instant, progress: [TransferProgress]) {
        var progress: [TransferProgress] = []
        while let event = await events.next() {
            switch event {
            case .progress(let report): progress.append(report)
            case .completed(let outcome, let instant): return (outcome, instant, progress)
            }
        }
        preconditionFailure("the event stream never ends before a completion")
    }
}

/// Runs `body` with a new loop named `name`, then shuts the loop down without blocking one of Swift
/// concurrency's threads (even when `body` throws).
func withLoop(_ name: String, _ body: (TransferLoop) async throws -> Void) async throws {
    let loop = TransferLoop(name: name)
    do {
        try await body(loop)
        await loop.shutdownAndWait()
    } catch {
        await loop.shutdownAndWait()
        throw error
    }
}

extension AllowedSources {
    /// Loopback, where every test origin listens: named explicitly, as an operator would.
    static let loopback = AllowedSources(entries: [Entry("127.0.0.0/8")!, Entry("::1")!])
}

extension TransferLimits {
    /// The default limits, with the test origins' loopback addresses allowed and the speed checks
    /// off: a held origin is held as long as a test needs (longer than the speed checks' 15 s on a
    /// loaded machine), so the speed checks are off; their tests set their own limits.
    static let onLoopback = TransferLimits(lowSpeedLimit: 0, minimumAverageSpeed: 0, allowedSources: .loopback)
}
