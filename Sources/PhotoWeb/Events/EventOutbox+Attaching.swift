import Foundation
import Locking

extension EventOutbox {
    /// Has `action` called once, when the first stream attaches, before anything else of `attach`
    /// (outside the outbox's lock): the registry counts the viewer among those events are sent to.
    func beforeFirstStream(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.beforeFirstStream = action }
    }

    /// Starts a new stream (closing any earlier one). Replays what came after `lastEventID` when
    /// the history still holds it; otherwise queues the events `snapshot` makes. Returns the
    /// stream's generation, to pass to `next`.
    ///
    /// `snapshot` is called without the outbox's lock (it reads the pipeline and the registry, which
    /// take their own locks); events enqueued while it runs are held and follow the snapshot.
    /// `cutConnection` closes this stream's connection; it is called (outside the lock) if the
    /// reader falls so far behind that the stream is cut off.
    func attach(lastEventID: UInt64?, cutConnection: (@Sendable () -> Void)? = nil, snapshot: () -> [Payload]) -> Int {
        state.withLock { $0.beforeFirstStream.take() }?()
        let (generation, replayed, stale) = state.withLock { state in
            state.generation += 1
            state.cutConnection = cutConnection
            state.attached = true
            state.everAttached = true
            state.lastActivity = .now
            let stale = state.waiter.take()
            let firstKept = state.history.first.map { _ in state.history[state.historyStart].id }
            // `lastEventID` comes from the client: bounded by `nextID` before any arithmetic on it.
            if !state.needsSnapshot, let lastEventID, lastEventID < state.nextID, let firstKept, lastEventID + 1 >= firstKept,
               lastEventID >= state.lastSnapshotID {
                state.pending = EventQueue(orderedHistory(state).filter { $0.id > lastEventID })
                settle(&state)
                return (state.generation, true, stale)
            }
            state.needsSnapshot = false
            state.pending.removeAll()
            state.held = []
            state.heldBytes = 0
            settle(&state)
            state.snapshotting = state.generation
            return (state.generation, false, stale)
        }
        stale?.waker.wake()
        guard !replayed else { return generation }

        let payloads = snapshot()
        let waiter = state.withLock { state -> Waker? in
            // A newer stream took over meanwhile: it made its own snapshot.
            guard state.snapshotting == generation else { return nil }
            state.snapshotting = nil
            let held = state.held
            state.held = []
            state.heldBytes = 0
            // The first stream's: what was done for the viewer before it (`keepForFirstStream`), then what came since.
            let early = state.earlyOperations
            state.earlyOperations = []
            defer { settle(&state) }
            for payload in payloads + early + held {
                let event = Self.stamp(payload, in: &state)
                state.pending.append(event)
                if payload.name == .snapshot {
                    // Not kept for replay: it is large (a row per photo), and a reconnect that
                    // missed it gets a fresh one anyway (see `lastSnapshotID`).
                    state.lastSnapshotID = event.id
                } else {
                    remember(event, in: &state)
                }
            }
            return wakeWaiter(in: &state)
        }
        waiter?.wake()
        return generation
    }

    /// Keeps `event` for a reconnect's replay: the last `historySize`. Under the lock.
    func remember(_ event: OutgoingEvent, in state: inout State) {
        if state.history.count < historySize {
            state.history.append(event)
        } else {
            state.history[state.historyStart] = event
            state.historyStart = (state.historyStart + 1) % historySize
        }
    }

    /// The kept events, oldest first.
    private func orderedHistory(_ state: State) -> [OutgoingEvent] {
        Array(state.history[state.historyStart...] + state.history[..<state.historyStart])
    }
}
