import Foundation
import PhotoPipeline
import Locking

/// One event connection carrying several viewers: a browser's tabs, or a lab page's lanes, share it
/// (over HTTP/1.1 a browser gives a host six connections for all its tabs). Viewers join and leave
/// while it is open; each keeps its own outbox, and with it its own reconnection rule: a join with
/// `lastEventID` replays what that viewer missed, one without (or too old) gets a fresh snapshot.
///
/// Lock order: a leaf. Outboxes are attached and detached, and the mux posted to, after it is released.
final class SharedEventStream: Sendable {
    /// What a member is: the viewer and the generation of its outbox's stream that this one carries
    /// (nil while the join is attaching it).
    private struct Member {
        var session: ViewerSession
        var generation: Int?
    }

    private struct State {
        var members: [ViewerID: Member] = [:]
        var closed = false
        /// The server is stopping: the stream ends once its last member has written what it had.
        var finishing = false
        /// Since when it has carried nobody (nil while it carries a viewer): its client's oldest
        /// idle stream is the one that makes room for another (`SharedStreams.makeRoom`).
        var emptySince: ContinuousClock.Instant? = .now

        /// Notes the moment the last member went.
        mutating func markEmptyIfSo() {
            if members.isEmpty, emptySince == nil { emptySince = .now }
        }
    }

    let id: String
    /// Viewers this stream carries at most; a join past it is refused.
    let maxViewers: Int
    /// What the writer sends, in order.
    let mux: StreamMux
    /// Closes the connection (a member's reader fell so far behind that its outbox cut it off).
    private let cutConnection: @Sendable () -> Void
    private let state = Locked(State())

    /// `unsent`: the process-wide budget what waits in the mux counts in.
    init(
        id: String = UUID().uuidString.lowercased(), maxViewers: Int, unsent: UnsentEventBytes? = nil,
        cutConnection: @escaping @Sendable () -> Void = {}
    ) {
        self.id = id
        self.maxViewers = maxViewers
        self.cutConnection = cutConnection
        mux = StreamMux(unsent: unsent, overflowed: cutConnection)
    }

    /// The viewers carried now.
    var viewers: [ViewerID] { state.withLock { Array($0.members.keys) } }

    /// Since when the stream has carried no viewer; nil while it carries one.
    var idleSince: ContinuousClock.Instant? { state.withLock { $0.closed ? nil : $0.emptySince } }

    /// Carries `session` from now on (again, if it was carried already): its events after
    /// `lastEventID`, or what `snapshot` makes. Throws when the stream has ended or is full.
    func join(_ session: ViewerSession, lastEventID: UInt64?, snapshot: () -> [EventOutbox.Payload]) throws(SharedStreamError) {
        let reserved: Result<Void, SharedStreamError> = state.withLock { state in
            if state.closed { return .failure(.ended(id)) }
            if state.members[session.id] == nil, state.members.count >= maxViewers { return .failure(.full(id, maxViewers: maxViewers)) }
            state.members[session.id] = Member(session: session, generation: nil)
            state.emptySince = nil
            return .success(())
        }
        try reserved.get()
        let cut = cutConnection
        let generation = session.outbox.attach(lastEventID: lastEventID, cutConnection: { cut() }, snapshot: snapshot)
        let kept = state.withLock { state in
            // A join of the same viewer that attached after this one holds a newer generation: it stays.
            guard !state.closed, let member = state.members[session.id], member.session === session,
                  (member.generation ?? .min) < generation else { return false }
            state.members[session.id]?.generation = generation
            return true
        }
        guard kept else {
            // The stream ended, or the viewer left, while its outbox was attached: that stream is over too.
            session.outbox.detach(generation: generation)
            return
        }
        // The carry of an earlier join of this viewer ends here: its waiting entry is withdrawn.
        mux.carry(session.id, generation: generation)
        // The writer's first pull takes what the join queued (a replay or a snapshot), or arms the outbox.
        mux.ready(session.id, generation: generation)
    }

    /// Stops carrying viewer `id`; false when it was not carried.
    @discardableResult
    func leave(_ id: ViewerID) -> Bool {
        let removed = state.withLock { state in
            defer { state.markEmptyIfSo() }
            return state.members.removeValue(forKey: id)
        }
        guard let member = removed else { return false }
        if let generation = member.generation {
            mux.retire(id, generation: generation)
            member.session.outbox.detach(generation: generation)
        }
        return true
    }

    /// Closes the stream's connection (its client's other stream needed its place).
    func cut() {
        cutConnection()
    }

    /// Ends the stream: every member's outbox learns its stream is gone (their viewers may join
    /// another stream, with `Last-Event-ID`).
    func close() {
        let members = state.withLock { state in
            state.closed = true
            defer { state.members.removeAll() }
            return Array(state.members.values)
        }
        mux.close()
        for member in members { member.generation.map(member.session.outbox.detach(generation:)) }
    }

    /// The server is stopping: ends the stream once its members' outboxes (closed by the server,
    /// with their `shutdown` event) have been written out; at once when it carries nobody.
    func finish() {
        let idle = state.withLock { state in
            state.finishing = true
            return state.members.isEmpty
        }
        if idle { close() }
    }

    /// What the writer writes for viewer `viewer`, whose outbox said it had something for stream
    /// `generation` (`StreamMux.ready`): what its outbox has ready, as one item; nil when nothing is
    /// (a superseded carry, or a wake-up with nothing left). When the outbox has ended that stream (the
    /// viewer was cut off, dropped or closed), the viewer stops being carried here.
    func pull(_ viewer: ViewerID, generation: Int) -> StreamMux.Item? {
        let member = state.withLock { state in state.members[viewer].flatMap { $0.generation == generation ? $0.session : nil } }
        guard let session = member else { return nil }
        let mux = mux
        let (wake, more) = session.outbox.pull(generation: generation) { mux.ready(viewer, generation: generation) }
        switch wake {
        case .item(.events(let events)):
            if more { mux.ready(viewer, generation: generation) }
            return .events(viewer, events)
        case .item(.heartbeat):
            if more { mux.ready(viewer, generation: generation) }
            return .heartbeat
        case .closed:
            ended(session, generation: generation)
            return nil
        case .woken, nil:
            return nil
        }
    }

    /// Viewer `session`'s outbox ended stream `generation` (it left, joined elsewhere, was cut off
    /// or dropped): it is no longer carried, and the page is told.
    private func ended(_ session: ViewerSession, generation: Int) {
        mux.retire(session.id, generation: generation)
        session.outbox.detach(generation: generation)
        let (dropped, last) = state.withLock { state -> (Bool, Bool) in
            guard !state.closed, state.members[session.id]?.generation == generation else { return (false, false) }
            state.members[session.id] = nil
            state.markEmptyIfSo()
            return (true, state.finishing && state.members.isEmpty)
        }
        // The page learns that this viewer is no longer carried: it may join it again (a new id
        // after a restart, a snapshot after a cut).
        if dropped { mux.post(.control("left", EventPayloads.json(EventPayloads.Viewer(viewer: session.id.rawValue)))) }
        if last { close() }
    }
}
