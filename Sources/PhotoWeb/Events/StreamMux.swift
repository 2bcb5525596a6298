import Foundation
import PhotoPipeline
import Locking

/// What several viewers' outboxes hand one shared stream's writer: each member delivers one item at
/// a time (the events its outbox had ready, together) and waits until the writer takes it, so the mux holds at most one item per member and the
/// outboxes stay the place where unsent events are bounded and coalesced.
///
/// One carry per member: a re-join names a newer generation of the viewer's outbox, and the item
/// the carry it supersedes was waiting to deliver is withdrawn (that carry then ends). A heartbeat
/// waits at most once; control events are capped (past `maxQueuedControls` the client is not
/// reading, and its connection is cut). What waits counts in the unsent-bytes budget.
final class StreamMux: Sendable {
    /// What the writer gets next.
    enum Item: Sendable {
        /// Viewer `viewer`'s events, taken from its outbox together: written together.
        case events(ViewerID, [OutgoingEvent])
        /// A comment line, so proxies keep the connection and a gone client is noticed.
        case heartbeat
        /// A control event of the stream itself (`stream`, `left`): its name and JSON.
        case control(String, Data)

        /// About the bytes it takes on the wire, as counted in the unsent-bytes budget.
        var bytes: Int {
            switch self {
            case .events(_, let events): events.reduce(0) { $0 + $1.data.count + 96 }
            case .heartbeat: 8
            case .control(let name, let data): name.count + data.count + 16
            }
        }
    }

    /// Control events waiting at most; a client past them is not reading its stream.
    static let maxQueuedControls = 64

    private struct Waiting {
        var item: Item
        /// The member's carry that waits for it to be taken (nil: posted).
        var carrier: (viewer: ViewerID, generation: Int, taken: CheckedContinuation<Bool, Never>)?
    }

    private struct State {
        var queue: [Waiting] = []
        var waiter: CheckedContinuation<Item?, Never>?
        var closed = false
        /// The outbox generation each member's carry delivers from: one carry per member.
        var carriers: [ViewerID: Int] = [:]
        var queuedControls = 0
        var heartbeatQueued = false
    }

    /// The process-wide unsent bytes the waiting items count in.
    private let unsent: UnsentEventBytes?
    /// Cuts the connection (the client let `maxQueuedControls` pile up).
    private let overflowed: @Sendable () -> Void
    /// Lock order: a leaf (the budget is lock-free). Continuations are resumed after it is released.
    private let state = Locked(State())

    init(unsent: UnsentEventBytes? = nil, overflowed: @escaping @Sendable () -> Void = {}) {
        self.unsent = unsent
        self.overflowed = overflowed
    }

    /// Items waiting for the writer now.
    var queued: Int { state.withLock { $0.queue.count } }

    /// From now on viewer `viewer`'s events come from its outbox's `generation`: an older carry's
    /// waiting item is withdrawn (its `deliver` returns false, and that carry ends).
    func carry(_ viewer: ViewerID, generation: Int) {
        let withdrawn = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            guard !state.closed, (state.carriers[viewer] ?? .min) < generation else { return [] }
            state.carriers[viewer] = generation
            return withdraw(in: &state) { $0.viewer == viewer && $0.generation < generation }
        }
        withdrawn.forEach { $0.resume(returning: false) }
    }

    /// Viewer `viewer`'s carry of `generation` ended (it left, or its outbox ended it).
    func retire(_ viewer: ViewerID, generation: Int) {
        let withdrawn = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            guard state.carriers[viewer] == generation else { return [] }
            state.carriers[viewer] = nil
            return withdraw(in: &state) { $0.viewer == viewer }
        }
        withdrawn.forEach { $0.resume(returning: false) }
    }

    /// Hands viewer `viewer`'s events (from its outbox's `generation`) to the writer as one item and
    /// waits until it is taken; false once the stream has closed or a newer carry replaced this one
    /// (the item is then dropped, and the carry stops).
    func deliver(_ events: [OutgoingEvent], of viewer: ViewerID, generation: Int) async -> Bool {
        let item = Item.events(viewer, events)
        return await withCheckedContinuation { (taken: CheckedContinuation<Bool, Never>) in
            let action: (writer: CheckedContinuation<Item?, Never>?, accepted: Bool?) = state.withLock { state in
                if state.closed || state.carriers[viewer] != generation { return (nil, false) }
                if let writer = state.waiter.take() { return (writer, true) }
                state.queue.append(Waiting(item: item, carrier: (viewer, generation, taken)))
                unsent?.add(item.bytes)
                return (nil, nil)
            }
            action.writer?.resume(returning: item)
            if let accepted = action.accepted { taken.resume(returning: accepted) }
        }
    }

    /// Queues an item nobody waits on (a heartbeat or a control event); dropped once closed, or
    /// when a heartbeat already waits.
    func post(_ item: Item) {
        enum Outcome { case none, hand(CheckedContinuation<Item?, Never>), overflow }
        let outcome = state.withLock { state -> Outcome in
            guard !state.closed else { return .none }
            if let writer = state.waiter.take() { return .hand(writer) }
            switch item {
            case .heartbeat:
                guard !state.heartbeatQueued else { return .none }
                state.heartbeatQueued = true
            case .control:
                guard state.queuedControls < Self.maxQueuedControls else { return .overflow }
                state.queuedControls += 1
            case .events:
                break
            }
            state.queue.append(Waiting(item: item, carrier: nil))
            unsent?.add(item.bytes)
            return .none
        }
        switch outcome {
        case .none: break
        case .hand(let writer): writer.resume(returning: item)
        case .overflow:
            close()
            overflowed()
        }
    }

    /// The next item, waiting for one; nil once the stream has closed, or when the waiting task is
    /// cancelled (a stopping server cancels its connections: the stream must not hold the stop).
    func next() async -> Item? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (writer: CheckedContinuation<Item?, Never>) in
                enum Ready { case closed, item(Waiting) }
                let ready: Ready? = state.withLock { state in
                    if state.closed { return .closed }
                    guard !state.queue.isEmpty else {
                        // Cancelled before it waited: the handler below found no waiter to end.
                        if Task.isCancelled { return .closed }
                        state.waiter = writer
                        return nil
                    }
                    let first = state.queue.removeFirst()
                    uncount(first, in: &state)
                    return .item(first)
                }
                switch ready {
                case nil: break
                case .closed: writer.resume(returning: nil)
                case .item(let waiting):
                    waiting.carrier?.taken.resume(returning: true)
                    writer.resume(returning: waiting.item)
                }
            }
        } onCancel: {
            state.withLock { $0.waiter.take() }?.resume(returning: nil)
        }
    }

    /// The next item if one is queued now, without waiting (nil when none is, or the stream closed):
    /// the writer takes what came together and writes it at once.
    func nextIfReady() -> Item? {
        let taken: Waiting? = state.withLock { state in
            guard !state.closed, !state.queue.isEmpty else { return nil }
            let first = state.queue.removeFirst()
            uncount(first, in: &state)
            return first
        }
        guard let taken else { return nil }
        taken.carrier?.taken.resume(returning: true)
        return taken.item
    }

    /// Ends the stream: the writer's wait returns nil and every member waiting to deliver is told no.
    func close() {
        let (writer, members) = state.withLock { state in
            state.closed = true
            let members = withdraw(in: &state) { _ in true }
            let posted = state.queue
            state.queue.removeAll()
            posted.forEach { uncount($0, in: &state) }
            return (state.waiter.take(), members)
        }
        writer?.resume(returning: nil)
        members.forEach { $0.resume(returning: false) }
    }

    /// Takes the waiting deliveries `matching` out of the queue; their carries, to be told no.
    private func withdraw(
        in state: inout State, matching: ((viewer: ViewerID, generation: Int, taken: CheckedContinuation<Bool, Never>)) -> Bool
    ) -> [CheckedContinuation<Bool, Never>] {
        var withdrawn: [CheckedContinuation<Bool, Never>] = []
        var kept: [Waiting] = []
        let queue = state.queue
        for waiting in queue {
            if let carrier = waiting.carrier, matching(carrier) {
                withdrawn.append(carrier.taken)
                uncount(waiting, in: &state)
            } else {
                kept.append(waiting)
            }
        }
        state.queue = kept
        return withdrawn
    }

    private func uncount(_ waiting: Waiting, in state: inout State) {
        unsent?.add(-waiting.item.bytes)
        switch waiting.item {
        case .heartbeat where waiting.carrier == nil: state.heartbeatQueued = false
        case .control: state.queuedControls -= 1
        default: break
        }
    }
}
