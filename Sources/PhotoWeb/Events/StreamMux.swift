import Foundation
import PhotoPipeline
import Locking

/// What one shared stream's writer writes next, in order: its members' events and its own items.
///
/// A member whose outbox has events is queued here as ready (its outbox calls `ready` once, then
/// again only after the writer has pulled from it), and the writer takes its events from the outbox
/// when it comes to it (`SharedEventStream.pull`): no task of the member's own sits between the
/// outbox and the writer, the events stay in the outbox until written (where unsent events are
/// bounded and coalesced), and the mux holds at most one entry per member.
///
/// One carry per member: a re-join names a newer generation of the viewer's outbox, and an entry of
/// an older one is withdrawn. A heartbeat waits at most once; control events are capped (past
/// `maxQueuedControls` the client is not reading, and its connection is cut). What waits counts in
/// the unsent-bytes budget.
final class StreamMux: Sendable {
    /// What the writer writes.
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

    /// What the writer is handed: an item to write, or a member to pull events from.
    enum Entry: Sendable {
        case item(Item)
        /// Viewer `viewer`'s outbox has something for stream `generation`.
        case ready(ViewerID, generation: Int)
    }

    /// Control events waiting at most; a client past them is not reading its stream.
    static let maxQueuedControls = 64

    private struct State {
        var queue: [Entry] = []
        var waiter: CheckedContinuation<Entry?, Never>?
        var closed = false
        /// The outbox generation each member's events come from: one carry per member.
        var carriers: [ViewerID: Int] = [:]
        /// The members with an entry in `queue`: one each.
        var queuedMembers: Set<ViewerID> = []
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

    /// Entries waiting for the writer now.
    var queued: Int { state.withLock { $0.queue.count } }

    /// From now on viewer `viewer`'s events come from its outbox's `generation`: an older carry's
    /// waiting entry is withdrawn.
    func carry(_ viewer: ViewerID, generation: Int) {
        state.withLock { state in
            guard !state.closed, (state.carriers[viewer] ?? .min) < generation else { return }
            state.carriers[viewer] = generation
            if state.queuedMembers.remove(viewer) != nil {
                state.queue.removeAll { if case .ready(viewer, _) = $0 { true } else { false } }
            }
        }
    }

    /// Viewer `viewer`'s carry of `generation` ended (it left, or its outbox ended it).
    func retire(_ viewer: ViewerID, generation: Int) {
        state.withLock { state in
            guard state.carriers[viewer] == generation else { return }
            state.carriers[viewer] = nil
            if state.queuedMembers.remove(viewer) != nil {
                state.queue.removeAll { if case .ready(viewer, _) = $0 { true } else { false } }
            }
        }
    }

    /// Viewer `viewer`'s outbox has something for stream `generation`: the writer pulls it in its
    /// turn. Ignored once the stream has closed, for a carry that is not the viewer's current one, and
    /// while the member's entry already waits.
    func ready(_ viewer: ViewerID, generation: Int) {
        let entry = Entry.ready(viewer, generation: generation)
        let writer: CheckedContinuation<Entry?, Never>? = state.withLock { state in
            guard !state.closed, state.carriers[viewer] == generation, !state.queuedMembers.contains(viewer) else { return nil }
            if let writer = state.waiter.take() { return writer }
            state.queuedMembers.insert(viewer)
            state.queue.append(entry)
            return nil
        }
        writer?.resume(returning: entry)
    }

    /// Queues an item of the stream's own (a heartbeat or a control event); dropped once closed, or
    /// when a heartbeat already waits.
    func post(_ item: Item) {
        enum Outcome { case none, hand(CheckedContinuation<Entry?, Never>), overflow }
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
            state.queue.append(.item(item))
            unsent?.add(item.bytes)
            return .none
        }
        switch outcome {
        case .none: break
        case .hand(let writer): writer.resume(returning: .item(item))
        case .overflow:
            close()
            overflowed()
        }
    }

    /// The next entry, waiting for one; nil once the stream has closed, or when the waiting task is
    /// cancelled (a stopping server cancels its connections: the stream must not hold the stop).
    func next() async -> Entry? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (writer: CheckedContinuation<Entry?, Never>) in
                enum Ready { case closed, entry(Entry) }
                let ready: Ready? = state.withLock { state in
                    if state.closed { return .closed }
                    guard !state.queue.isEmpty else {
                        // Cancelled before it waited: the handler below found no waiter to end.
                        if Task.isCancelled { return .closed }
                        state.waiter = writer
                        return nil
                    }
                    return .entry(takeFirst(in: &state))
                }
                switch ready {
                case nil: break
                case .closed: writer.resume(returning: nil)
                case .entry(let entry): writer.resume(returning: entry)
                }
            }
        } onCancel: {
            state.withLock { $0.waiter.take() }?.resume(returning: nil)
        }
    }

    /// The next entry if one is queued now, without waiting (nil when none is, or the stream closed):
    /// the writer takes what came together and writes it at once.
    func nextIfReady() -> Entry? {
        state.withLock { state in
            guard !state.closed, !state.queue.isEmpty else { return nil }
            return takeFirst(in: &state)
        }
    }

    /// Ends the stream: the writer's wait returns nil, and what waited is dropped.
    func close() {
        let writer = state.withLock { state in
            state.closed = true
            let queue = state.queue
            state.queue.removeAll()
            state.queuedMembers.removeAll()
            queue.forEach { uncount($0, in: &state) }
            return state.waiter.take()
        }
        writer?.resume(returning: nil)
    }

    /// The first entry, taken out of the queue and its count. Under the lock.
    private func takeFirst(in state: inout State) -> Entry {
        let first = state.queue.removeFirst()
        uncount(first, in: &state)
        return first
    }

    private func uncount(_ entry: Entry, in state: inout State) {
        guard case .item(let item) = entry else {
            if case .ready(let viewer, _) = entry { state.queuedMembers.remove(viewer) }
            return
        }
        unsent?.add(-item.bytes)
        switch item {
        case .heartbeat: state.heartbeatQueued = false
        case .control: state.queuedControls -= 1
        case .events: break
        }
    }
}
