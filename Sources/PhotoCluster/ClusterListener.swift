import Logging
import NIOCore
import PhotoPipeline
import PostgresNIO
import Locking
import Synchronization

/// Hears the other instances: `LISTEN`s for their events and for results kept, on a session of its
/// own, and hands them to the pipeline. When the session is lost it says so (`isConnected`), opens
/// a new one, and catches up: the events table from the last sequence number seen, and the names
/// of the results kept meanwhile.
final class ClusterListener: Sendable {
    private struct Seen {
        /// The highest sequence number seen, from any instance.
        var highest: Int64?
        /// The highest sequence number seen from each instance (events from one instance arrive in order).
        var byInstance: [String: Int64] = [:]
    }

    private let address: DatabaseAddress
    private let eventLoop: any EventLoop
    private let instance: String
    private let results: PostgresResultStore
    private let logger: Logger
    private let seen = Locked(Seen())
    /// The cluster connected at start; this says otherwise once a listening session is lost.
    private let connected = Atomic(true)
    /// Events before the last one seen that a reconnect reads again (another instance's may commit later).
    private static let catchUpMargin: Int64 = 1_000

    init(address: DatabaseAddress, eventLoop: any EventLoop, instance: String, results: PostgresResultStore, logger: Logger) {
        self.address = address
        self.eventLoop = eventLoop
        self.instance = instance
        self.results = results
        self.logger = logger
    }

    /// Whether the listening session is open now.
    var isConnected: Bool { connected.load(ordering: .relaxed) }

    /// Listens for `pipeline` until cancelled, reconnecting after a loss.
    func run(_ pipeline: PhotoPipeline) async {
        let indices = Dictionary(pipeline.entries.enumerated().map { ($1.cacheKey, $0) }, uniquingKeysWith: { first, _ in first })
        var attempt = 0
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(
                    on: eventLoop, configuration: address.configuration, id: 0, logger: logger)
                attempt = 0
                do {
                    try await listen(on: connection, pipeline, indices)
                } catch {
                    try? await connection.close()
                    throw error
                }
            } catch {
                if connected.exchange(false, ordering: .relaxed) || attempt == 0 {
                    logger.error("database connection lost: serving what this instance has, reconnecting", metadata: ["reason": "\(error.clusterReason)"])
                }
            }
            connected.store(false, ordering: .relaxed)
            attempt += 1
            try? await Task.sleep(for: .milliseconds(min(2_000, 200 * attempt)))
        }
    }

    private func listen(on connection: PostgresConnection, _ pipeline: PhotoPipeline, _ indices: [String: Int]) async throws {
        try await connection.listen(on: ClusterSchema.eventsChannel) { events in
            try await connection.listen(on: ClusterSchema.resultsChannel) { kept in
                // Listening now: what passed while not is read from the tables.
                try await catchUp(on: connection, pipeline, indices)
                for name in await results.reload() { pipeline.resultArrived(named: name) }
                if !connected.exchange(true, ordering: .relaxed) {
                    logger.info("database connected again", metadata: ["database": "\(address)", "instance": "\(instance)"])
                }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await notification in events { self.receive(notification.payload, pipeline, indices) }
                    }
                    group.addTask {
                        for try await notification in kept {
                            self.results.noteHeld(notification.payload)
                            pipeline.resultArrived(named: notification.payload)
                        }
                    }
                    // Either sequence ends only when the session does.
                    try await group.next()
                    group.cancelAll()
                    throw ClusterError.unreachable(self.address.description, reason: "the listening session ended")
                }
            }
        }
    }

    private func catchUp(on connection: PostgresConnection, _ pipeline: PhotoPipeline, _ indices: [String: Int]) async throws {
        guard let highest = seen.withLock({ $0.highest }) else {
            // First connection: only what happens from now on.
            let rows = try await connection.query("SELECT coalesce(max(seq), 0) FROM classic_photos_events", logger: logger)
            for try await start in rows.decode(Int64.self) { seen.withLock { $0.highest = start } }
            return
        }
        let rows = try await connection.query("""
            SELECT seq, instance, payload FROM classic_photos_events WHERE seq > \(highest - Self.catchUpMargin) ORDER BY seq
            """, logger: logger)
        for try await (sequence, sender, payload) in rows.decode((Int64, String, String).self) {
            apply(sequence, sender, Substring(payload), pipeline, indices)
        }
    }

    /// A notification's payload: `SEQUENCE INSTANCE JSON`.
    private func receive(_ payload: String, _ pipeline: PhotoPipeline, _ indices: [String: Int]) {
        let parts = payload.split(separator: " ", maxSplits: 2)
        guard parts.count == 3, let sequence = Int64(parts[0]) else { return }
        apply(sequence, String(parts[1]), parts[2], pipeline, indices)
    }

    private func apply(_ sequence: Int64, _ sender: String, _ json: Substring, _ pipeline: PhotoPipeline, _ indices: [String: Int]) {
        let isNew = seen.withLock { seen in
            seen.highest = max(seen.highest ?? 0, sequence)
            guard sender != instance, sequence > seen.byInstance[sender, default: 0] else { return false }
            seen.byInstance[sender] = sequence
            return true
        }
        guard isNew, let message = RemoteStateMessage(json: json), let index = indices[message.k],
              let state = message.state else { return }
        pipeline.applyRemoteState(state, of: index)
    }
}
