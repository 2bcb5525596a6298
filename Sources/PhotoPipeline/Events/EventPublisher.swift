import Foundation
import Synchronization

/// Fans pipeline events out to subscribers, each through its own stream.
///
/// `publish` is called with the pipeline's lock held, so every subscriber sees one total order;
/// yielding to an `AsyncStream` never blocks, and each subscriber chooses how much it buffers.
///
/// Lock order: pipeline -> publisher -> Swift's task status lock (inside `yield`). Nothing that
/// holds a task's status lock may take the publisher's lock, so there is no termination handler.
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
        // No `onTermination` that takes this lock: Swift runs it while holding the cancelled task's
        // own lock, which `yield` below needs too (a deadlock seen at shutdown). A subscriber whose
        // stream ended is dropped by the next `publish` instead.
        state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
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
            for (id, continuation) in state.subscribers {
                if case .terminated = continuation.yield(event) {
                    state.subscribers[id] = nil
                }
            }
        }
    }
}
