import Foundation
import Synchronization

/// Fans pipeline events out to subscribers, each through its own stream.
///
/// `publish` is called with the pipeline's lock held, so every subscriber sees one total order;
/// yielding to an `AsyncStream` never blocks, and each subscriber chooses how much it buffers.
public final class EventPublisher: Sendable {
    private struct State {
        var sequence: UInt64 = 0
        var subscribers: [UInt64: AsyncStream<PipelineEvent>.Continuation] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    private let start = ContinuousClock.now

    init() {}

    /// A stream of every event from now on; it keeps at most `bufferLimit` unread events (the newest).
    ///
    /// The stream ends when the subscriber stops iterating or `finishAll()` is called.
    public func subscribe(bufferLimit: Int = 10_000) -> AsyncStream<PipelineEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: PipelineEvent.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let id = state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every subscriber's stream (server shutdown).
    public func finishAll() {
        let continuations = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        continuations.forEach { $0.finish() }
    }

    func publish(_ kind: PipelineEvent.Kind) {
        let elapsed = ContinuousClock.now - start
        let time = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        state.withLock { state in
            state.sequence += 1
            let event = PipelineEvent(sequence: state.sequence, time: time, kind: kind)
            for continuation in state.subscribers.values {
                continuation.yield(event)
            }
        }
    }
}
