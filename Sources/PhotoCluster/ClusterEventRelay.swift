import Logging
import PhotoPipeline
import PostgresNIO

/// Carries the state changes of this instance's own work to the other instances: each one is kept
/// in the events table (for an instance that reconnects to catch up from) and announced with
/// `NOTIFY`, carrying its sequence number, in the order they happened, on one session of its own.
///
/// Only photos with an operation running here are told: what this instance shows of another's work
/// is never echoed back.
final class ClusterEventRelay: Sendable {
    private let connection: ClusterConnection
    private let instance: String
    private let logger: Logger

    init(connection: ClusterConnection, instance: String, logger: Logger) {
        self.connection = connection
        self.instance = instance
        self.logger = logger
    }

    /// Relays `pipeline`'s events until its stream ends or the task is cancelled.
    func run(_ pipeline: PhotoPipeline) async {
        var running: [Int: Int] = [:]
        var sent = 0
        for await event in pipeline.events.subscribe(bufferLimit: 100_000) {
            switch event.kind {
            case .operation(let operation) where operation.outcome == .started:
                running[operation.index, default: 0] += 1
            case .operation(let operation) where operation.track != nil:
                running[operation.index] = (running[operation.index] ?? 1) > 1 ? running[operation.index]! - 1 : nil
            case .photo(let index, let state) where running[index] != nil:
                send(RemoteStateMessage(cacheKey: pipeline.entries[index].cacheKey, state: state))
                sent += 1
                if sent % 1_000 == 0 { prune() }
            default:
                break
            }
        }
    }

    private func send(_ message: RemoteStateMessage) {
        let payload = message.json
        let query: PostgresQuery = """
            WITH e AS (INSERT INTO classic_photos_events (instance, payload) VALUES (\(instance), \(payload)) RETURNING seq)
            SELECT pg_notify('classic_photos_events', seq::text || ' ' || \(instance) || ' ' || \(payload)) FROM e
            """
        connection.query(query).whenFailure { [logger] error in
            logger.debug("event not relayed", metadata: ["reason": "\(error.clusterReason)"])
        }
    }

    /// Events older than ten minutes are past any reconnect's catching up.
    private func prune() {
        connection.query("DELETE FROM classic_photos_events WHERE at < now() - interval '10 minutes'").whenFailure { _ in }
    }
}
