import Foundation
import PhotoPipeline
import Locking

/// One viewer's outgoing events: bounded, coalescing, replayable.
///
/// The pipeline never waits for a viewer. Unsent updates of one photo collapse to its latest state;
/// past `limit` unsent events or `byteLimit` unsent bytes the viewer's stream is closed and its next
/// connection starts from a snapshot, so a reader that stops reading costs a bounded amount of memory
/// whatever the list's length (a snapshot covers the rows near the viewer's viewport, not the list).
/// The unsent bytes count against the process-wide `unsent` budget. The last `historySize` events
/// are kept for a reconnect that sends `Last-Event-ID`.
///
/// Its parts, by concern: queueing and the cut-off (`+Queueing`), a stream's start from the history
/// or a snapshot (`+Attaching`), the writer's wait (`+Reading`), a stream's and the viewer's end
/// (`+Lifetime`); the byte budget is kept here.
final class EventOutbox: Sendable {
    /// What the stream writer gets next.
    enum Item: Sendable {
        /// Every event queued when the writer took them (up to about `batchBytes`), in order: one write.
        case events([OutgoingEvent])
        case heartbeat
    }

    /// What a writer waiting in `next` is resumed with.
    enum Wake: Sendable {
        case item(Item)
        /// Its stream is closed.
        case closed
        /// Something changed: it looks again (what it finds then goes in one batch).
        case woken
    }

    /// Who waits for stream `generation`'s next item.
    enum Waker: Sendable {
        /// A writer's task, in `next`.
        case task(CheckedContinuation<Wake, Never>)
        /// A shared stream's mux, which has its writer `pull` (called once, then armed again by the pull).
        case hook(@Sendable () -> Void)

        /// Tells it something changed. After the outbox's lock is released.
        func wake() {
            switch self {
            case .task(let continuation): continuation.resume(returning: .woken)
            case .hook(let ready): ready()
            }
        }
    }

    /// An item carries events queued together up to about this many bytes.
    static let batchBytes = 64 * 1_024

    /// Kept under `state`'s lock; read and changed only by this type and its `EventOutbox+` extensions.
    struct State {
        var nextID: UInt64 = 1
        var pending = EventQueue()
        var history: [OutgoingEvent] = []
        var historyStart = 0
        var generation = 0
        var attached = false
        /// Called once, as the first stream attaches, before its snapshot is made (`beforeFirstStream`).
        var beforeFirstStream: (@Sendable () -> Void)?
        /// Whether a stream was ever attached: a viewer that never connects is forgotten sooner.
        var everAttached = false
        /// Operations done for the viewer before its first stream, sent after that stream's snapshot (`+FirstStream`).
        var earlyOperations: [Payload] = []
        var needsSnapshot = false
        var heartbeatDue = false
        /// The id of the last snapshot sent: a reconnect from before it needs a new one.
        var lastSnapshotID: UInt64 = 0
        /// Set at shutdown: the stream ends once what is queued has been written.
        var closing = false
        /// Who is told when something comes for stream `generation`: a writer's task waiting in `next`,
        /// or a shared stream's mux (`pull`). Taken when it is told.
        var waiter: (generation: Int, waker: Waker)?
        var lastActivity = ContinuousClock.now
        /// The generation whose snapshot is being made outside the lock, if any.
        var snapshotting: Int?
        /// Events that arrived while that snapshot was being made, and their bytes.
        var held: [Payload] = []
        var heldBytes = 0
        /// The id of the last event queued to go in a write of its own (`enqueue(contentsOf:endingWrite:)`).
        var writeEnd: UInt64?
        /// The unsent bytes last counted in the process-wide budget.
        var counted = 0
        /// Closes the current stream's connection: called when its reader has fallen so far behind
        /// that it is cut off, since a writer stuck on a full socket would never see the cut.
        var cutConnection: (@Sendable () -> Void)?

        /// Its stream went away (it had one) and no other is attached or being started; not closed.
        var isDetached: Bool { everAttached && !attached && snapshotting == nil && !closing }
    }

    let limit: Int
    /// Unsent bytes past which the stream is cut off. Default 256 KiB: a snapshot (a few hundred
    /// rows) and a long backlog of updates.
    let byteLimit: Int
    let historySize: Int
    /// The process-wide count of unsent bytes this outbox adds to, if any.
    let unsent: UnsentEventBytes?
    /// Lock order: a leaf. Nothing that takes another lock runs under it (the snapshot is made
    /// outside it, and waiters are resumed after it is released).
    let state = Locked(State())

    init(limit: Int = 2_000, byteLimit: Int = 256 * 1_024, historySize: Int = 512, unsent: UnsentEventBytes? = nil) {
        self.limit = limit
        self.byteLimit = byteLimit
        self.historySize = historySize
        self.unsent = unsent
    }

    deinit {
        unsent?.add(-state.withLock { $0.counted })
    }

    /// Unsent events now (for tests and the memory figures).
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Unsent bytes now (for tests and the memory figures).
    var pendingBytes: Int { state.withLock { $0.pending.bytes + $0.heldBytes } }

    /// Brings the process-wide count of unsent bytes in line with this outbox's. Under the lock.
    func settle(_ state: inout State) {
        let now = state.pending.bytes + state.heldBytes
        unsent?.add(now - state.counted)
        state.counted = now
    }
}
