import Foundation
import Locking
import Synchronization

/// Fans pipeline events out to subscribers, each through its own stream, in stamp order.
///
/// Events are stamped (`stamp`, lock-free) where they happen, under the pipeline's lock, and
/// delivered after it is released; an event handed over before an earlier-stamped one waits for it,
/// so every subscriber sees one total order. Yielding to an `AsyncStream` never blocks, and each
/// subscriber chooses how much it buffers.
///
/// Lock order: publisher -> Swift's task status lock (inside `yield`). Nothing that holds a task's
/// status lock may take the publisher's lock, so there is no termination handler.
public final class EventPublisher: Sendable {
    private struct State {
        /// The last sequence number delivered.
        var delivered: UInt64 = 0
        /// Events handed over before an earlier one, by sequence number.
        var waiting: [UInt64: PipelineEvent] = [:]
        var subscribers: [UInt64: AsyncStream<PipelineEvent>.Continuation] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())
    private let lastStamped = Atomic<UInt64>(0)
    /// When it began: an event's `time` counts from it.
    public let start = ContinuousClock.now

    init() {}

    /// The last sequence number stamped. Every change of a row is stamped under the pipeline's lock
    /// with the change itself, so rows read after this was read are at least as new as it says: a
    /// body made from them stays current while this stays the same (`ListVersion` in the web layer).
    public var lastSequence: UInt64 { lastStamped.load(ordering: .relaxed) }

    /// A stream of every event from now on; it keeps at most `bufferLimit` unread events (the newest).
    ///
    /// The stream ends when the subscriber stops iterating or `finishAll()` is called.
    public func subscribe(bufferLimit: Int = 10_000) -> AsyncStream<PipelineEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: PipelineEvent.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        // No `onTermination` that takes this lock: Swift runs it while holding the cancelled task's
        // own lock, which `yield` below needs too (a deadlock seen at shutdown). A subscriber whose
        // stream ended is dropped by the next delivery instead.
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

    /// The next event: `kind`, stamped now. Takes no lock, so it may be called under the pipeline's.
    func stamp(_ kind: PipelineEvent.Kind) -> PipelineEvent {
        let elapsed = ContinuousClock.now - start
        let time = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let sequence = lastStamped.wrappingAdd(1, ordering: .relaxed).newValue
        return PipelineEvent(sequence: sequence, time: time, kind: kind)
    }

    /// Carries stamped `events` to every subscriber, all events in stamp order (two threads may hand
    /// theirs over in either order once the pipeline's lock is released).
    func deliver(_ events: [PipelineEvent]) {
        guard !events.isEmpty else { return }
        state.withLock { state in
            for event in events { state.waiting[event.sequence] = event }
            while let event = state.waiting.removeValue(forKey: state.delivered + 1) {
                state.delivered += 1
                for (id, continuation) in state.subscribers {
                    if case .terminated = continuation.yield(event) {
                        state.subscribers[id] = nil
                    }
                }
            }
        }
    }

    /// Stamps and delivers one event at once.
    func publish(_ kind: PipelineEvent.Kind) {
        deliver([stamp(kind)])
    }
}
