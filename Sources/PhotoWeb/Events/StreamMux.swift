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
        /// Wakes the writer once when the next entry comes, or the stream closes (`wakeWhenReady`).
        var waker: (@Sendable () -> Void)?
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

    /// Whether the stream has closed: the writer stops.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Has `wake` called once, after the lock is released, when the next entry comes or the stream
    /// closes; false (and `wake` is not kept) when an entry waits already: the writer takes it now.
    func wakeWhenReady(_ wake: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard state.queue.isEmpty || state.closed else { return false }
            if !state.closed { state.waker = wake }
            return true
        }
    }

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
        let wake: (@Sendable () -> Void)? = state.withLock { state in
            guard !state.closed, state.carriers[viewer] == generation, !state.queuedMembers.contains(viewer) else { return nil }
            state.queuedMembers.insert(viewer)
            state.queue.append(.ready(viewer, generation: generation))
            return state.waker.take()
        }
        wake?()
    }

    /// Queues an item of the stream's own (a heartbeat or a control event); dropped once closed, or
    /// when a heartbeat already waits.
    func post(_ item: Item) {
        enum Outcome { case none, wake(@Sendable () -> Void), overflow }
        let outcome = state.withLock { state -> Outcome in
            guard !state.closed else { return .none }
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
            return state.waker.take().map { .wake($0) } ?? .none
        }
        switch outcome {
        case .none: break
        case .wake(let wake): wake()
        case .overflow:
            close()
            overflowed()
        }
    }

    /// The next entry if one is queued now (nil when none is, or the stream closed).
    func nextIfReady() -> Entry? {
        state.withLock { state in
            guard !state.closed, !state.queue.isEmpty else { return nil }
            return takeFirst(in: &state)
        }
    }

    /// Ends the stream: what waited is dropped, and the writer is woken to see it.
    func close() {
        let wake = state.withLock { state in
            state.closed = true
            let queue = state.queue
            state.queue.removeAll()
            state.queuedMembers.removeAll()
            queue.forEach { uncount($0, in: &state) }
            return state.waker.take()
        }
        wake?()
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
