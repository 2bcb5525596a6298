import Foundation
import PhotoPipeline
import Locking
import PhotoTransport

/// Every viewer by id, the list's and the lab lanes' alike, each in its channel
/// (`ViewerSession.channel`). A viewer with no event stream for its channel's `idleTimeout` is
/// dropped and its work cancelled (at once when a new viewer needs its place); one that never opened
/// its stream goes after the channel's `connectTimeout`, so viewers made and never used cannot fill
/// `maxViewers` for long. A client's viewers (`create(in:for:)`) are at most its share (`places`):
/// past it, its own viewer whose stream went away longest ago makes room, else it gets 429.
///
/// Lock order: the registry's lock is a leaf. Nothing else is locked or called while it is held;
/// sessions and their outboxes are read after it is released.
final class ViewerRegistry: Sendable {
    let maxViewers: Int
    /// The unsent event bytes of every viewer's outbox: past its budget no new stream opens.
    let unsent: UnsentEventBytes
    /// The shared event streams open now, each carrying several of these viewers.
    let streams: SharedStreams
    /// The viewers each client holds (lab lanes' and tests' viewers name no client).
    let places: ClientPlaces
    private let sessions = Locked(Members())

    /// The viewers by id, and those that have opened an event stream, by channel, with a count of the
    /// changes to those: a reader that keeps what it worked out from them (the forwarder's audience)
    /// works it out again only when the count moved.
    private struct Members {
        var byID: [ViewerID: ViewerSession] = [:]
        private(set) var streaming: [ObjectIdentifier: [ViewerID: ViewerSession]] = [:]
        private(set) var streamingVersion: UInt64 = 0
        /// Per channel, its viewers in the order they were made, until each has opened a stream or
        /// its connect timeout ran out: one channel's timeouts run out in this order, so `dropIdle`
        /// looks at the front only. (One that left meanwhile stays until it reaches the front.)
        var connecting: [ObjectIdentifier: ArraySlice<ViewerSession>] = [:]

        mutating func add(_ session: ViewerSession) {
            byID[session.id] = session
            connecting[ObjectIdentifier(session.channel), default: []].append(session)
        }

        /// Takes the first `count` viewers of `channel`'s `connecting` out (at most as many as there are).
        mutating func passConnecting(_ count: Int, of channel: ObjectIdentifier) {
            guard var queue = connecting.removeValue(forKey: channel) else { return }
            queue.removeFirst(min(count, queue.count))
            if !queue.isEmpty { connecting[channel] = queue }
        }

        /// Takes viewer `id` out of both.
        mutating func take(_ id: ViewerID) -> ViewerSession? {
            guard let session = byID.removeValue(forKey: id) else { return nil }
            if streaming[ObjectIdentifier(session.channel)]?.removeValue(forKey: id) != nil { streamingVersion &+= 1 }
            return session
        }

        /// Counts `session` among its channel's streaming viewers, if it is still a member.
        mutating func noteStreaming(_ session: ViewerSession) {
            guard byID[session.id] === session else { return }
            let channel = ObjectIdentifier(session.channel)
            guard streaming[channel]?[session.id] == nil else { return }
            streaming[channel, default: [:]][session.id] = session
            streamingVersion &+= 1
        }

        mutating func removeAll() {
            byID.removeAll()
            connecting.removeAll()
            streaming.removeAll()
            streamingVersion &+= 1
        }
    }

    init(
        maxViewers: Int, viewersPerClient: Int? = nil, sharedStreamsPerClient: Int = .max,
        unsent: UnsentEventBytes = .init(budget: .max)
    ) {
        self.maxViewers = maxViewers
        self.unsent = unsent
        places = ClientPlaces("viewers", perClient: viewersPerClient ?? maxViewers)
        streams = SharedStreams(unsent: unsent, perClient: sharedStreamsPerClient)
    }

    /// A new viewer of `channel`, or nil when the server already has `maxViewers` viewers that are
    /// connected (or still connecting). At the maximum, the viewer whose stream went away longest
    /// ago makes room at once: a closed stream does not hold a place until its idle timeout, yet a
    /// viewer that reconnects while the server has room keeps its replay.
    func create(in channel: PhotoChannel) -> ViewerSession? {
        create(in: channel, client: nil)
    }

    /// A new viewer of `channel` for `client` (a `ClientAddress.group`): at the client's share, its
    /// own viewer whose stream went away longest ago makes room, else `429`; `503` when the server is full.
    func create(in channel: PhotoChannel, for client: String) throws(APIError) -> ViewerSession {
        guard places.take(client) || (makeRoom(of: client) && places.take(client)) else { throw places.refusal(client) }
        guard let session = create(in: channel, client: client) else {
            places.give(client)
            throw refusal
        }
        return session
    }

    private func create(in channel: PhotoChannel, client: String?) -> ViewerSession? {
        let session = ViewerSession(id: .random(), outbox: EventOutbox(unsent: unsent), channel: channel, client: client)
        // Ticks and the forwarder serve a viewer from its first stream on (before that stream's
        // snapshot is made, so no event falls between): a page load that never opens one costs them nothing.
        session.outbox.beforeFirstStream { [weak self, weak session] in
            guard let self, let session else { return }
            sessions.withLock { $0.noteStreaming(session) }
        }
        for _ in 0..<2 {
            let added = sessions.withLock { members in
                guard members.byID.count < maxViewers else { return false }
                members.add(session)
                return true
            }
            if added { return session }
            guard makeRoom() else { return nil }
        }
        return nil
    }

    /// The 503 for a viewer refused by `create`.
    var refusal: APIError {
        .unavailable("the server has its maximum of \(maxViewers) viewers; try again shortly")
    }

    /// Drops the viewer (of `client`, if named) whose stream has been gone longest, if any; returns
    /// whether one went.
    ///
    /// Outboxes are asked outside the registry's lock (lock order, as in `dropIdle`).
    private func makeRoom(of client: String? = nil) -> Bool {
        let candidates = client.map { client in all.filter { $0.client == client } } ?? all
        let gone = candidates.compactMap { session in session.outbox.detachedSince.map { (session, $0) } }
        for (session, _) in gone.sorted(by: { $0.1 < $1.1 }) where session.outbox.closeIfDetached() {
            guard remove(session.id) != nil else { continue }
            session.close()
            return true
        }
        return false
    }

    func session(_ id: ViewerID) -> ViewerSession? {
        sessions.withLock { $0.byID[id] }
    }

    /// Every viewer of every channel.
    var all: [ViewerSession] {
        sessions.withLock { Array($0.byID.values) }
    }

    /// Counts every change to the streaming viewers (one that opened its first stream, or one of
    /// them removed, of any channel).
    var streamingVersion: UInt64 {
        sessions.withLock { $0.streamingVersion }
    }

    /// The viewers of `channel`.
    func all(in channel: PhotoChannel) -> [ViewerSession] {
        sessions.withLock { $0.byID.values.filter { $0.channel === channel } }
    }

    /// The viewers of `channel` that have opened an event stream (it may have gone since: events
    /// still go to their history for its replay). What the ticks and the forwarder serve: a viewer
    /// that never opened one gets a snapshot of everything with its first stream.
    func streaming(in channel: PhotoChannel) -> [ViewerSession] {
        sessions.withLock { members in members.streaming[ObjectIdentifier(channel)].map { Array($0.values) } ?? [] }
    }

    var count: Int {
        sessions.withLock { $0.byID.count }
    }

    /// How many viewers `channel` has.
    func count(in channel: PhotoChannel) -> Int {
        sessions.withLock { $0.byID.values.reduce(0) { $0 + ($1.channel === channel ? 1 : 0) } }
    }

    /// Drops viewers whose stream has been gone longer than their channel's timeout, and those that
    /// never opened one within its connect timeout; returns them. Looks at every viewer that has had
    /// a stream, and of the others only at those made before the oldest still within its timeout
    /// (a flood of page loads costs each tick what has run out, not what was made).
    ///
    /// Each outbox is asked outside the registry's lock (lock order: never the outbox under the
    /// registry, never the registry under the outbox). Called by one task at a time (the ticks).
    @discardableResult
    func dropIdle(now: ContinuousClock.Instant = .now) -> [ViewerSession] {
        let (streamingOnes, connecting) = sessions.withLock { members in
            (members.streaming.values.flatMap(\.values), members.connecting)
        }
        var idle = streamingOnes.filter { Self.closeIfIdle($0, now: now) }
        var passed: [ObjectIdentifier: Int] = [:]
        for (channel, queue) in connecting {
            var count = 0
            for session in queue {
                // One that left, or opened a stream (it is among the streaming ones), is passed;
                // one whose connect timeout ran out goes.
                if self.session(session.id) !== session || session.outbox.hasStreamed {
                } else if Self.closeIfIdle(session, now: now) {
                    idle.append(session)
                } else {
                    break
                }
                count += 1
            }
            passed[channel] = count
        }
        let dropped = released(sessions.withLock { members in
            passed.forEach { members.passConnecting($1, of: $0) }
            return idle.filter { members.take($0.id) != nil }
        })
        dropped.forEach { $0.close() }
        return dropped
    }

    private static func closeIfIdle(_ session: ViewerSession, now: ContinuousClock.Instant) -> Bool {
        let settings = session.channel.settings
        return session.outbox.closeIfIdle(now: now, timeout: settings.idleTimeout, connectTimeout: settings.connectTimeout)
    }

    /// Takes viewer `id` out (it said it leaves); returns it, to be closed by the caller.
    func remove(_ id: ViewerID) -> ViewerSession? {
        sessions.withLock { $0.take(id) }.map { released([$0])[0] }
    }

    /// Takes `channel`'s viewers out (it ends); returns them, to be closed by the caller.
    func removeAll(in channel: PhotoChannel) -> [ViewerSession] {
        released(sessions.withLock { members in
            let leaving = members.byID.values.filter { $0.channel === channel }
            leaving.forEach { _ = members.take($0.id) }
            return leaving
        })
    }

    /// Removes every viewer (shutdown); each shared stream ends once its viewers' last events are written.
    func removeAll() -> [ViewerSession] {
        streams.finishAll()
        return released(sessions.withLock { members in
            defer { members.removeAll() }
            return Array(members.byID.values)
        })
    }

    /// Gives back the places of `removed` (taken out of `sessions` by the caller, each once).
    private func released(_ removed: [ViewerSession]) -> [ViewerSession] {
        for session in removed { session.client.map(places.give) }
        return removed
    }
}
