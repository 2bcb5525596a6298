import Foundation
import PhotoPipeline
import Locking

/// Every viewer by id, the list's and the lab lanes' alike, each in its channel
/// (`ViewerSession.channel`). A viewer with no event stream for its channel's `idleTimeout` is
/// dropped and its work cancelled (at once when a new viewer needs its place); one that never opened
/// its stream goes after the channel's `connectTimeout`, so viewers made and never used cannot fill
/// `maxViewers` for long.
///
/// Lock order: the registry's lock is a leaf. Nothing else is locked or called while it is held;
/// sessions and their outboxes are read after it is released.
final class ViewerRegistry: Sendable {
    let maxViewers: Int
    /// The unsent event bytes of every viewer's outbox: past its budget no new stream opens.
    let unsent: UnsentEventBytes
    /// The shared event streams open now, each carrying several of these viewers.
    let streams: SharedStreams
    private let sessions = Locked<[ViewerID: ViewerSession]>([:])

    init(maxViewers: Int, unsent: UnsentEventBytes = .init(budget: .max)) {
        self.maxViewers = maxViewers
        self.unsent = unsent
        streams = SharedStreams(unsent: unsent)
    }

    /// A new viewer of `channel`, or nil when the server already has `maxViewers` viewers that are
    /// connected (or still connecting). At the maximum, the viewer whose stream went away longest
    /// ago makes room at once: a closed stream does not hold a place until its idle timeout, yet a
    /// viewer that reconnects while the server has room keeps its replay.
    func create(in channel: PhotoChannel) -> ViewerSession? {
        let session = ViewerSession(id: .random(), outbox: EventOutbox(unsent: unsent), channel: channel)
        for _ in 0..<2 {
            let added = sessions.withLock { sessions in
                guard sessions.count < maxViewers else { return false }
                sessions[session.id] = session
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

    /// Drops the viewer whose stream has been gone longest, if any; returns whether one went.
    ///
    /// Outboxes are asked outside the registry's lock (lock order, as in `dropIdle`).
    private func makeRoom() -> Bool {
        let gone = all.compactMap { session in session.outbox.detachedSince.map { (session, $0) } }
        for (session, _) in gone.sorted(by: { $0.1 < $1.1 }) where session.outbox.closeIfDetached() {
            _ = remove(session.id)
            session.close()
            return true
        }
        return false
    }

    func session(_ id: ViewerID) -> ViewerSession? {
        sessions.withLock { $0[id] }
    }

    /// Every viewer of every channel.
    var all: [ViewerSession] {
        sessions.withLock { Array($0.values) }
    }

    /// The viewers of `channel`.
    func all(in channel: PhotoChannel) -> [ViewerSession] {
        sessions.withLock { $0.values.filter { $0.channel === channel } }
    }

    var count: Int {
        sessions.withLock { $0.count }
    }

    /// How many viewers `channel` has.
    func count(in channel: PhotoChannel) -> Int {
        sessions.withLock { $0.values.reduce(0) { $0 + ($1.channel === channel ? 1 : 0) } }
    }

    /// Drops viewers whose stream has been gone longer than their channel's timeout; returns them.
    ///
    /// Each outbox is asked outside the registry's lock (lock order: never the outbox under the
    /// registry, never the registry under the outbox).
    @discardableResult
    func dropIdle(now: ContinuousClock.Instant = .now) -> [ViewerSession] {
        let idle = all.filter { session in
            let settings = session.channel.settings
            return session.outbox.closeIfIdle(now: now, timeout: settings.idleTimeout, connectTimeout: settings.connectTimeout)
        }
        sessions.withLock { sessions in idle.forEach { sessions[$0.id] = nil } }
        idle.forEach { $0.close() }
        return idle
    }

    /// Takes viewer `id` out (it said it leaves); returns it, to be closed by the caller.
    func remove(_ id: ViewerID) -> ViewerSession? {
        sessions.withLock { $0.removeValue(forKey: id) }
    }

    /// Takes `channel`'s viewers out (it ends); returns them, to be closed by the caller.
    func removeAll(in channel: PhotoChannel) -> [ViewerSession] {
        sessions.withLock { sessions in
            let leaving = sessions.values.filter { $0.channel === channel }
            leaving.forEach { sessions[$0.id] = nil }
            return leaving
        }
    }

    /// Removes every viewer (shutdown); each shared stream ends once its viewers' last events are written.
    func removeAll() -> [ViewerSession] {
        streams.finishAll()
        return sessions.withLock { sessions in
            defer { sessions.removeAll() }
            return Array(sessions.values)
        }
    }
}
