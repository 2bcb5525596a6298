import Foundation
import Locking

extension EventOutbox {
    /// Stream `generation` ended (the client left or the write failed).
    func detach(generation: Int) {
        let waiter = state.withLock { state -> Waker? in
            guard state.generation == generation else { return nil }
            state.attached = false
            // The next stream replays from the history or starts from a snapshot: the backlog is of no use.
            state.pending.removeAll()
            settle(&state)
            state.cutConnection = nil
            state.lastActivity = .now
            state.generation += 1
            return state.waiter.take()?.waker
        }
        waiter?.wake()
    }

    /// Ends this outbox for good if no stream has read from it for longer than `timeout`; returns
    /// whether it did. Checked and closed in one step, so a stream attaching meanwhile is never cut.
    /// `connectTimeout` applies to a viewer whose stream never opened (a client that only made
    /// viewers), `timeout` to one whose stream went away.
    func closeIfIdle(now: ContinuousClock.Instant, timeout: Duration, connectTimeout: Duration? = nil) -> Bool {
        state.withLock { state in
            let limit = state.everAttached ? timeout : connectTimeout ?? timeout
            guard !state.attached, state.snapshotting == nil, now - state.lastActivity > limit else { return false }
            state.closing = true
            return true
        }
    }

    /// Whether a stream was ever attached.
    var hasStreamed: Bool {
        state.withLock { $0.everAttached }
    }

    /// When this viewer's stream went away, if it had one and has none now (nil while a stream is
    /// attached or being started, for a viewer that never connected, and once closed).
    var detachedSince: ContinuousClock.Instant? {
        state.withLock { state in
            state.isDetached ? state.lastActivity : nil
        }
    }

    /// Ends this outbox for good if its stream is gone (as `closeIfIdle` with no wait); returns whether it did.
    func closeIfDetached() -> Bool {
        state.withLock { state in
            guard state.isDetached else { return false }
            state.closing = true
            return true
        }
    }

    /// Ends the current stream for good once what is queued has been written (server shutdown,
    /// or the viewer was dropped).
    func close() {
        let waiter = state.withLock { state -> Waker? in
            state.closing = true
            // A waiting writer means nothing is queued: it can stop now.
            return state.waiter.take()?.waker
        }
        waiter?.wake()
    }
}
