import Foundation
import PhotoPipeline
import Synchronization

/// All viewers, by id. A viewer with no event stream for `idleTimeout` is dropped and its work
/// cancelled.
final class ViewerRegistry: Sendable {
    let maxViewers: Int
    let idleTimeout: Duration
    private let sessions = Mutex<[ViewerID: ViewerSession]>([:])

    init(maxViewers: Int, idleTimeout: Duration) {
        self.maxViewers = maxViewers
        self.idleTimeout = idleTimeout
    }

    /// A new viewer, or nil when the server already has `maxViewers`.
    func create() -> ViewerSession? {
        let session = ViewerSession(id: .random(), outbox: EventOutbox())
        let added = sessions.withLock { sessions in
            guard sessions.count < maxViewers else { return false }
            sessions[session.id] = session
            return true
        }
        return added ? session : nil
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
    @discardableResult
    func dropIdle(now: ContinuousClock.Instant = .now) -> [ViewerSession] {
        let dropped = sessions.withLock { sessions in
            let idle = sessions.values.filter { !$0.outbox.isAttached && now - $0.outbox.lastActivity > idleTimeout }
            idle.forEach { sessions[$0.id] = nil }
            return idle
        }
        dropped.forEach { $0.close() }
        return dropped
    }

    /// Removes every viewer (shutdown).
    func removeAll() -> [ViewerSession] {
        sessions.withLock { sessions in
            defer { sessions.removeAll() }
            return Array(sessions.values)
        }
    }
}
