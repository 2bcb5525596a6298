import Foundation
import PhotoPipeline
import Locking

/// What several viewers' outboxes hand one shared stream's writer: each member delivers one item at
/// a time and waits until the writer takes it, so the mux holds at most one item per member and the
/// outboxes stay the place where unsent events are bounded and coalesced.
final class StreamMux: Sendable {
    /// What the writer gets next.
    enum Item: Sendable {
        /// Viewer `viewer`'s event.
        case event(ViewerID, OutgoingEvent)
        /// A comment line, so proxies keep the connection and a gone client is noticed.
        case heartbeat
        /// A control event of the stream itself (`stream`, `left`): its name and JSON.
        case control(String, Data)
    }

    private struct State {
        var queue: [(item: Item, taken: CheckedContinuation<Bool, Never>?)] = []
        var waiter: CheckedContinuation<Item?, Never>?
        var closed = false
    }

    /// Lock order: a leaf. Continuations are resumed after it is released.
    private let state = Locked(State())

    /// Hands `item` to the writer and waits until it is taken; false once the stream has closed
    /// (the item is then dropped, and the member stops).
    func deliver(_ item: Item) async -> Bool {
        await withCheckedContinuation { (taken: CheckedContinuation<Bool, Never>) in
            let action: (writer: CheckedContinuation<Item?, Never>?, accepted: Bool?) = state.withLock { state in
                if state.closed { return (nil, false) }
                if let writer = state.waiter.take() { return (writer, true) }
                state.queue.append((item, taken))
                return (nil, nil)
            }
            action.writer?.resume(returning: item)
            if let accepted = action.accepted { taken.resume(returning: accepted) }
        }
    }

    /// Queues an item nobody waits on (a heartbeat or a control event); dropped once closed.
    func post(_ item: Item) {
        let writer = state.withLock { state -> CheckedContinuation<Item?, Never>? in
            guard !state.closed else { return nil }
            if let writer = state.waiter.take() { return writer }
            state.queue.append((item, nil))
            return nil
        }
        writer?.resume(returning: item)
    }

    /// The next item, waiting for one; nil once the stream has closed.
    func next() async -> Item? {
        await withCheckedContinuation { (writer: CheckedContinuation<Item?, Never>) in
            let ready: (item: Item?, taken: CheckedContinuation<Bool, Never>?)? = state.withLock { state in
                if state.closed { return (nil, nil) }
                guard !state.queue.isEmpty else {
                    state.waiter = writer
                    return nil
                }
                let first = state.queue.removeFirst()
                return (first.item, first.taken)
            }
            guard let ready else { return }
            ready.taken?.resume(returning: true)
            writer.resume(returning: ready.item)
        }
    }

    /// Ends the stream: the writer's wait returns nil and every member waiting to deliver is told no.
    func close() {
        let (writer, members) = state.withLock { state in
            state.closed = true
            defer { state.queue.removeAll() }
            return (state.waiter.take(), state.queue.compactMap(\.taken))
        }
        writer?.resume(returning: nil)
        members.forEach { $0.resume(returning: false) }
    }
}
