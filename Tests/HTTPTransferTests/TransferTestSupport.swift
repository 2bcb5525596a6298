import Foundation
import HTTPTransfer
import Synchronization

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
    case completed(Result<Data, TransferError>, at: ContinuousClock.Instant)
}

/// Counts completions, to check that each transfer completes exactly once.
final class CompletionCounter: Sendable {
    private let count = Mutex(0)

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

    /// Starts a GET of `url` on `loop`.
    init(_ loop: TransferLoop, _ url: String, limits: TransferLimits = .init()) {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferEvent.self)
        let completions = completions
        handle = loop.start(url, limits: limits) { progress in
            continuation.yield(.progress(progress))
        } completion: { result in
            completions.increment()
            continuation.yield(.completed(result, at: .now))
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

    /// Waits for the completion, collecting the progress reports before it.
    mutating func completion() async -> (result: Result<Data, TransferError>, at: ContinuousClock.Instant, progress: [TransferProgress]) {
        var progress: [TransferProgress] = []
        while let event = await events.next() {
            switch event {
            case .progress(let report): progress.append(report)
            case .completed(let result, let instant): return (result, instant, progress)
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
