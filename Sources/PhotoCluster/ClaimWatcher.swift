import Dispatch
import Logging
import PostgresNIO
import Locking

/// Waits for claims other instances hold, by looking at PostgreSQL's lock table a few times a
/// second: when a claim is free (its holder finished, or died and PostgreSQL let go of its locks)
/// the results store is read afresh and the waiters are called, on a Dispatch thread.
///
/// While it waits for a key it holds the shared "want" lock on it (on the instance's session), so
/// the holder knows this instance still wants the work.
final class ClaimWatcher: Sendable {
    private let session: ClusterConnection
    private let results: PostgresResultStore
    private let interval: Duration
    private let logger: Logger
    /// Waiters by lock key. Lock order: a leaf.
    private let waiting = Locked<[Int32: [@Sendable () -> Void]]>([:])

    init(session: ClusterConnection, results: PostgresResultStore, interval: Duration, logger: Logger) {
        self.session = session
        self.results = results
        self.interval = interval
        self.logger = logger
    }

    /// Keys waited for now.
    var count: Int { waiting.withLock { $0.count } }

    /// Calls `then` once the work lock `key` is free.
    func watch(_ key: Int32, then: @escaping @Sendable () -> Void) {
        let first = waiting.withLock { waiting in
            defer { waiting[key, default: []].append(then) }
            return waiting[key] == nil
        }
        if first {
            session.query("SELECT pg_try_advisory_lock_shared(\(ClusterSchema.wantLockClass), \(key))").whenFailure { _ in }
        }
    }

    /// Looks at the lock table every `interval` until cancelled.
    func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            await poll()
        }
    }

    private func poll() async {
        let keys = waiting.withLock { Array($0.keys) }
        guard !keys.isEmpty else { return }
        let free: [Int32]
        do {
            let rows = try await session.query("""
                SELECT k FROM unnest(\(keys)::int4[]) AS k WHERE NOT EXISTS (
                    SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = \(ClusterSchema.workLockClass)::oid
                    AND objid = k::oid AND objsubid = 2 AND granted)
                """).get()
            free = try rows.map { try $0.decode(Int32.self) }
        } catch {
            // No database: nobody else can be trusted to finish the work; this instance does it.
            logger.debug("claim watch without the database", metadata: ["reason": "\(error.clusterReason)"])
            free = keys
        }
        guard !free.isEmpty else { return }
        await results.reload()
        let called = waiting.withLock { waiting in free.flatMap { waiting.removeValue(forKey: $0) ?? [] } }
        for key in free {
            session.query("SELECT pg_advisory_unlock_shared(\(ClusterSchema.wantLockClass), \(key))").whenFailure { _ in }
        }
        for then in called { DispatchQueue.global().async(execute: then) }
    }
}
