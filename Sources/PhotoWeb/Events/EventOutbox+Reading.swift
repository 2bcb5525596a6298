import Foundation
import Locking

extension EventOutbox {
    /// The next item for stream `generation`, waiting for one; nil when that stream is closed or the
    /// waiting task is cancelled (a stopping server cancels its connections: a stream nobody closed
    /// must not hold the stop). An item holds every event queued when the writer comes for it (up to
    /// about `batchBytes`): what came while it wrote the last one goes in one write, not one per event.
    func next(generation: Int) async -> Item? {
        while true {
            let wake = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Wake, Never>) in
                    let ready: Wake? = state.withLock { state in
                        if let ready = take(for: generation, in: &state) { return ready }
                        // Cancelled before it waited: the handler below found no waiter to end.
                        if Task.isCancelled { return .closed }
                        state.waiter = (generation, .task(continuation))
                        return nil
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Wake, Never>? in
                    guard let waiter = state.waiter, waiter.generation == generation, case .task(let continuation) = waiter.waker else {
                        return nil
                    }
                    state.waiter = nil
                    return continuation
                }
                waiter?.resume(returning: .closed)
            }
            switch wake {
            case .item(let item): return item
            case .closed: return nil
            case .woken: continue
            }
        }
    }

    /// What a shared stream's writer takes for stream `generation` now, without waiting: an item, or
    /// `.closed` when that stream is over; nil when nothing is ready. `more` says that more is ready
    /// already (the writer comes back for it after the other members'); when nothing more is,
    /// `whenReady` is called once, outside the lock, the moment something is (or the stream ends).
    func pull(generation: Int, whenReady: @escaping @Sendable () -> Void) -> (wake: Wake?, more: Bool) {
        state.withLock { state in
            let taken = take(for: generation, in: &state)
            if case .closed = taken { return (taken, false) }
            // A closing outbox ends its stream at the next pull, once what is queued is written.
            let more = state.pending.count > 0 || state.heartbeatDue || state.closing
            if !more { state.waiter = (generation, .hook(whenReady)) }
            return (taken, more)
        }
    }

    /// Sends a comment line if the stream has been quiet since `idleSince`, so proxies and
    /// browsers keep the connection and a dead client is noticed.
    func heartbeatIfIdle(since idleSince: ContinuousClock.Instant) {
        let waiter = state.withLock { state -> Waker? in
            guard state.attached, state.lastActivity <= idleSince else { return nil }
            state.heartbeatDue = true
            return wakeWaiter(in: &state)
        }
        waiter?.wake()
    }

    /// What stream `generation`'s writer gets now: the queued events, else a due heartbeat; nil
    /// when there is nothing (it waits). Under the lock.
    private func take(for generation: Int, in state: inout State) -> Wake? {
        guard state.generation == generation else { return .closed }
        if state.pending.count > 0 {
            var events: [OutgoingEvent] = []
            events.reserveCapacity(state.pending.count)
            var bytes = 0
            while bytes < Self.batchBytes, let event = state.pending.popFirst() {
                bytes += event.data.count
                events.append(event)
                // Ids grow in the queue: the write that had to end ends at its last event, or at the one that replaced it.
                if let end = state.writeEnd, event.id >= end {
                    state.writeEnd = nil
                    break
                }
            }
            settle(&state)
            // Events keep the connection as a heartbeat would.
            state.heartbeatDue = false
            state.lastActivity = .now
            return .item(.events(events))
        }
        if state.heartbeatDue {
            state.heartbeatDue = false
            state.lastActivity = .now
            return .item(.heartbeat)
        }
        return state.closing ? .closed : nil
    }

    /// The current stream's waiting writer, taken when it has something to write (resume it, with
    /// `.woken`, after the lock). Under the lock.
    func wakeWaiter(in state: inout State) -> Waker? {
        guard let waiter = state.waiter, waiter.generation == state.generation,
              state.pending.count > 0 || state.heartbeatDue else { return nil }
        state.waiter = nil
        return waiter.waker
    }
}
