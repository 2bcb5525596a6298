import Foundation
import Locking

extension EventOutbox {
    /// Queues an event for the viewer; closes its stream instead when too much is unsent.
    func enqueue(_ payload: Payload) {
        enqueue(contentsOf: CollectionOfOne(payload))
    }

    /// Queues events for the viewer in one step (one lock, at most one wake-up of its writer), as
    /// `enqueue` would one by one. `endingWrite`: what is queued now goes in a write of its own, ahead
    /// of what comes after it (a follower's move ahead of its rows).
    func enqueue(contentsOf payloads: some Sequence<Payload>, endingWrite: Bool = false) {
        var cut: (@Sendable () -> Void)?
        let waiter: Waker? = state.withLock { state in
            defer { settle(&state) }
            for payload in payloads {
                guard !state.needsSnapshot else { return nil }
                if state.snapshotting != nil {
                    // Stamped after the snapshot being made, so ids stay in the order they are sent.
                    state.held.append(payload)
                    state.heldBytes += payload.data.count
                    if state.held.count > limit || state.heldBytes > byteLimit {
                        state.snapshotting = nil
                        state.held = []
                        state.heldBytes = 0
                        state.needsSnapshot = true
                        state.generation += 1
                        cut = state.cutConnection.take()
                        return nil
                    }
                    continue
                }
                let event = Self.stamp(payload, in: &state)
                remember(event, in: &state)
                // With no stream attached, the next one starts from the history or a snapshot: nothing is queued.
                guard state.attached else { continue }
                state.pending.append(event)
                if state.pending.count > limit || state.pending.bytes > byteLimit {
                    // A reader this far behind is better served by a fresh snapshot than by a backlog.
                    state.needsSnapshot = true
                    state.pending.removeAll()
                    state.generation += 1
                    cut = state.cutConnection.take()
                    return state.waiter.take()?.waker
                }
            }
            guard state.attached, state.snapshotting == nil else { return nil }
            if endingWrite, state.pending.count > 0 { state.writeEnd = state.nextID - 1 }
            return wakeWaiter(in: &state)
        }
        waiter?.wake()
        cut?()
    }

    /// Closes the current stream; the next connection gets a snapshot.
    func requireSnapshot() {
        let waiter = state.withLock { state -> Waker? in
            state.needsSnapshot = true
            state.pending.removeAll()
            settle(&state)
            state.generation += 1
            return state.waiter.take()?.waker
        }
        waiter?.wake()
    }

    /// Gives `payload` the viewer's next id. Under the lock.
    static func stamp(_ payload: Payload, in state: inout State) -> OutgoingEvent {
        defer { state.nextID += 1 }
        return OutgoingEvent(
            id: state.nextID, name: payload.name, made: payload.made, data: payload.data,
            key: OutgoingEvent.key(for: payload.name, photoIndex: payload.photoIndex))
    }
}
