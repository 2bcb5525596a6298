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
final class EventOutbox: Sendable {
    /// What the stream writer gets next.
    enum Item: Sendable {
        case event(OutgoingEvent)
        case heartbeat
    }

    private struct State {
        var nextID: UInt64 = 1
        var pending = EventQueue()
        var history: [OutgoingEvent] = []
        var historyStart = 0
        var generation = 0
        var attached = false
        /// Whether a stream was ever attached: a viewer that never connects is forgotten sooner.
        var everAttached = false
        var needsSnapshot = false
        var heartbeatDue = false
        /// The id of the last snapshot sent: a reconnect from before it needs a new one.
        var lastSnapshotID: UInt64 = 0
        /// Set at shutdown: the stream ends once what is queued has been written.
        var closing = false
        var waiter: (generation: Int, continuation: CheckedContinuation<Item?, Never>)?
        var lastActivity = ContinuousClock.now
        /// The generation whose snapshot is being made outside the lock, if any.
        var snapshotting: Int?
        /// Events that arrived while that snapshot was being made, and their bytes.
        var held: [Payload] = []
        var heldBytes = 0
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
    private let state = Locked(State())

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

    /// Queues an event for the viewer; closes its stream instead when too much is unsent.
    func enqueue(_ payload: Payload) {
        enqueue(contentsOf: CollectionOfOne(payload))
    }

    /// Queues events for the viewer in one step (one lock, at most one wake-up of its writer), as
    /// `enqueue` would one by one.
    func enqueue(contentsOf payloads: some Sequence<Payload>) {
        var cut: (@Sendable () -> Void)?
        let resume: (CheckedContinuation<Item?, Never>, Item?)? = state.withLock { state in
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
                    return state.waiter.take().map { ($0.continuation, nil) }
                }
            }
            guard state.attached, state.snapshotting == nil else { return nil }
            return takeWaiter(in: &state)
        }
        resume.map { $0.0.resume(returning: $0.1) }
        cut?()
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
        stale?.continuation.resume(returning: nil)
        guard !replayed else { return generation }

        let payloads = snapshot()
        let resume = state.withLock { state -> (CheckedContinuation<Item?, Never>, Item?)? in
            // A newer stream took over meanwhile: it made its own snapshot.
            guard state.snapshotting == generation else { return nil }
            state.snapshotting = nil
            let held = state.held
            state.held = []
            state.heldBytes = 0
            defer { settle(&state) }
            for payload in payloads + held {
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
            return takeWaiter(in: &state)
        }
        resume.map { $0.0.resume(returning: $0.1) }
        return generation
    }

    /// The next item for stream `generation`, waiting for one; nil when that stream is closed.
    func next(generation: Int) async -> Item? {
        await withCheckedContinuation { continuation in
            let ready: Item?? = state.withLock { state in
                guard state.generation == generation else { return .some(nil) }
                if let event = state.pending.popFirst() {
                    state.lastActivity = .now
                    settle(&state)
                    return .some(.event(event))
                }
                if state.heartbeatDue {
                    state.heartbeatDue = false
                    state.lastActivity = .now
                    return .some(.heartbeat)
                }
                if state.closing { return .some(nil) }
                state.waiter = (generation, continuation)
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The next event for stream `generation` if one is queued now, without waiting (nil when none
    /// is, or the stream is closed): the writer takes what came together and writes it at once.
    func nextIfReady(generation: Int) -> OutgoingEvent? {
        state.withLock { state in
            guard state.generation == generation, let event = state.pending.popFirst() else { return nil }
            state.lastActivity = .now
            settle(&state)
            return event
        }
    }

    /// Stream `generation` ended (the client left or the write failed).
    func detach(generation: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Item?, Never>? in
            guard state.generation == generation else { return nil }
            state.attached = false
            // The next stream replays from the history or starts from a snapshot: the backlog is of no use.
            state.pending.removeAll()
            settle(&state)
            state.cutConnection = nil
            state.lastActivity = .now
            state.generation += 1
            return state.waiter.take()?.continuation
        }
        waiter?.resume(returning: nil)
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

    /// Sends a comment line if the stream has been quiet since `idleSince`, so proxies and
    /// browsers keep the connection and a dead client is noticed.
    func heartbeatIfIdle(since idleSince: ContinuousClock.Instant) {
        let resume = state.withLock { state -> (CheckedContinuation<Item?, Never>, Item?)? in
            guard state.attached, state.lastActivity <= idleSince else { return nil }
            state.heartbeatDue = true
            return takeWaiter(in: &state)
        }
        resume.map { $0.0.resume(returning: $0.1) }
    }

    /// Closes the current stream; the next connection gets a snapshot.
    func requireSnapshot() {
        let waiter = state.withLock { state -> CheckedContinuation<Item?, Never>? in
            state.needsSnapshot = true
            state.pending.removeAll()
            settle(&state)
            state.generation += 1
            return state.waiter.take()?.continuation
        }
        waiter?.resume(returning: nil)
    }

    /// Ends the current stream for good once what is queued has been written (server shutdown,
    /// or the viewer was dropped).
    func close() {
        let waiter = state.withLock { state -> CheckedContinuation<Item?, Never>? in
            state.closing = true
            // A waiting writer means nothing is queued: it can stop now.
            return state.waiter.take()?.continuation
        }
        waiter?.resume(returning: nil)
    }

    // MARK: Under the lock

    private static func stamp(_ payload: Payload, in state: inout State) -> OutgoingEvent {
        defer { state.nextID += 1 }
        return OutgoingEvent(
            id: state.nextID, name: payload.name, data: payload.data,
            key: OutgoingEvent.key(for: payload.name, photoIndex: payload.photoIndex))
    }

    private func remember(_ event: OutgoingEvent, in state: inout State) {
        if state.history.count < historySize {
            state.history.append(event)
        } else {
            state.history[state.historyStart] = event
            state.historyStart = (state.historyStart + 1) % historySize
        }
    }

    private func orderedHistory(_ state: State) -> [OutgoingEvent] {
        Array(state.history[state.historyStart...] + state.history[..<state.historyStart])
    }

    /// Brings the process-wide count of unsent bytes in line with this outbox's.
    private func settle(_ state: inout State) {
        let now = state.pending.bytes + state.heldBytes
        unsent?.add(now - state.counted)
        state.counted = now
    }

    private func takeWaiter(in state: inout State) -> (CheckedContinuation<Item?, Never>, Item?)? {
        guard let waiter = state.waiter, waiter.generation == state.generation else { return nil }
        if let event = state.pending.popFirst() {
            settle(&state)
            state.waiter = nil
            state.lastActivity = .now
            return (waiter.continuation, .event(event))
        }
        if state.heartbeatDue {
            state.heartbeatDue = false
            state.waiter = nil
            state.lastActivity = .now
            return (waiter.continuation, .heartbeat)
        }
        return nil
    }
}
