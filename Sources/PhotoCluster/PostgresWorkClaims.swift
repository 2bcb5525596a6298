import Dispatch
import Logging
public import PhotoPipeline
import PostgresNIO

/// Single flight across instances: a photo's work runs where its PostgreSQL session advisory lock
/// is held, and PostgreSQL lets go of it when the holder's session ends (the instance stopped,
/// crashed or lost its connection), so no claim outlives its holder.
///
/// An instance that finds a claim taken waits for it (`whenReleased`) holding a shared "want" lock
/// on the same key, which the holder reads before it gives up work no viewer of its own wants
/// (`isWantedElsewhere`). Claims and their release go through the instance's one session, in the
/// order they are made, after the results written before them. With the database gone, an instance
/// works alone: every claim is granted.
public final class PostgresWorkClaims: WorkClaiming {
    private let session: ClusterConnection
    private let watcher: ClaimWatcher
    private let logger: Logger

    init(session: ClusterConnection, watcher: ClaimWatcher, logger: Logger) {
        self.session = session
        self.watcher = watcher
        self.logger = logger
    }

    public var isShared: Bool { true }

    /// Blocks the operation's thread for one round trip.
    public func claim(_ key: String) -> Bool {
        do {
            let rows = try session.blocking("SELECT pg_try_advisory_lock(\(ClusterSchema.workLockClass), \(Self.lockKey(key)))")
            return try rows.first?.decode(Bool.self) ?? true
        } catch {
            logger.warning("claim without the database: working alone", metadata: ["work": "\(key)", "reason": "\(error.clusterReason)"])
            return true
        }
    }

    public func release(_ key: String) {
        session.query("SELECT pg_advisory_unlock(\(ClusterSchema.workLockClass), \(Self.lockKey(key)))").whenFailure { _ in
            // The session is gone, and PostgreSQL let go of its locks with it.
        }
    }

    public func whenReleased(_ key: String, then: @escaping @Sendable () -> Void) {
        watcher.watch(Self.lockKey(key), then: then)
    }

    public func isWantedElsewhere(_ key: String, reply: @escaping @Sendable (Bool) -> Void) {
        let query: PostgresQuery = """
            SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = \(ClusterSchema.wantLockClass)::oid
                AND objid = \(Self.lockKey(key))::oid AND objsubid = 2 AND granted AND pid <> pg_backend_pid())
            """
        session.query(query).whenComplete { result in
            let wanted = (try? result.get().first?.decode(Bool.self)) ?? false
            DispatchQueue.global().async { reply(wanted) }
        }
    }

    /// The lock's second key: a stable 32-bit hash of the work's name.
    static func lockKey(_ key: String) -> Int32 {
        var hash: UInt32 = 0x811c_9dc5
        for byte in key.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        return Int32(bitPattern: hash)
    }
}
