import Foundation
import PhotoPipeline
import Locking

/// All viewers, by id. A viewer with no event stream for `idleTimeout` is dropped and its work
/// cancelled (at once when a new viewer needs its place); one that never opened its stream goes
/// after `connectTimeout`, so viewers made and never used cannot fill `maxViewers` for long.
///
/// Lock order: the registry's lock is a leaf. Nothing else is locked or called while it is held;
/// sessions and their outboxes are read after it is released.
final class ViewerRegistry: Sendable {
    let maxViewers: Int
    let idleTimeout: Duration
    let connectTimeout: Duration
    /// The unsent event bytes of every viewer's outbox: past its budget no new stream opens.
    let unsent: UnsentEventBytes
    /// The shared event streams open now, each carrying several of these viewers.
    let streams = SharedStreams()
    private let sessions = Locked<[ViewerID: ViewerSession]>([:])

    init(maxViewers: Int, idleTimeout: Duration, connectTimeout: Duration? = nil, unsent: UnsentEventBytes = .init(budget: .max)) {
        self.maxViewers = maxViewers
        self.idleTimeout = idleTimeout
        self.connectTimeout = connectTimeout ?? idleTimeout
        self.unsent = unsent
    }

    /// A new viewer, or nil when the server already has `maxViewers` viewers that are connected (or
    /// still connecting). At the maximum, the viewer whose stream went away longest ago makes room at
    /// once: a closed stream does not hold a place until its idle timeout, yet a viewer that
    /// reconnects while the server has room keeps its replay.
    func create() -> ViewerSession? {
        let session = ViewerSession(id: .random(), outbox: EventOutbox(unsent: unsent))
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

    var all: [ViewerSession] {
        sessions.withLock { Array($0.values) }
    }

    var count: Int {
        sessions.withLock { $0.count }
    }

    /// Drops viewers whose stream has been gone longer than the timeout; returns them.
    ///
    /// Each outbox is asked outside the registry's lock (lock order: never the outbox under the
    /// registry, never the registry under the outbox).
    @discardableResult
    func dropIdle(now: ContinuousClock.Instant = .now) -> [ViewerSession] {
        let idle = all.filter { $0.outbox.closeIfIdle(now: now, timeout: idleTimeout, connectTimeout: connectTimeout) }
        sessions.withLock { sessions in idle.forEach { sessions[$0.id] = nil } }
        idle.forEach { $0.close() }
        return idle
    }

    /// Takes viewer `id` out (it said it leaves); returns it, to be closed by the caller.
    func remove(_ id: ViewerID) -> ViewerSession? {
        sessions.withLock { $0.removeValue(forKey: id) }
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
