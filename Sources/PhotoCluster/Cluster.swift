public import Logging
public import NIOCore
public import NIOPosix
public import PhotoPipeline
import Locking

/// Several instances on one PostgreSQL: the pipeline's seams given their shared forms, and the
/// sessions behind them.
///
/// `claims` (single flight across instances) and `results` (one store every instance serves) are
/// handed to the pipeline when it is made; `attach` then starts carrying events both ways and
/// watching the claims other instances hold. Sessions run on NIO's shared event loops, the ones
/// Hummingbird serves on. Each instance opens four: its session (claims, writes, in order), one
/// to read results, one to relay its events, one to listen.
public final class Cluster: Sendable {
    /// This instance's name among the others (also the edge's sticky cookie value).
    public let instance: String
    /// Where PostgreSQL is.
    public let address: DatabaseAddress
    /// Single flight across instances.
    public let claims: PostgresWorkClaims
    /// The results every instance serves.
    public let results: PostgresResultStore

    private let connections: [ClusterConnection]
    private let watcher: ClaimWatcher
    private let listener: ClusterListener
    private let relay: ClusterEventRelay
    private let tasks = Locked<[Task<Void, Never>]>([])

    private init(instance: String, address: DatabaseAddress, eventLoopGroup: any EventLoopGroup, logger: Logger) {
        self.instance = instance
        self.address = address
        let session = ClusterConnection(address: address, eventLoop: eventLoopGroup.any(), logger: logger)
        let reader = ClusterConnection(address: address, eventLoop: eventLoopGroup.any(), logger: logger)
        let relayConnection = ClusterConnection(address: address, eventLoop: eventLoopGroup.any(), logger: logger)
        connections = [session, reader, relayConnection]
        results = PostgresResultStore(session: session, reader: reader, logger: logger)
        watcher = ClaimWatcher(session: session, results: results, interval: .milliseconds(200), logger: logger)
        claims = PostgresWorkClaims(session: session, watcher: watcher, logger: logger)
        listener = ClusterListener(
            address: address, eventLoop: eventLoopGroup.any(), instance: instance, results: results, logger: logger)
        relay = ClusterEventRelay(connection: relayConnection, instance: instance, logger: logger)
    }

    /// Connects to the database at `url` and creates the schema if it is missing; throws a one-line
    /// reason when PostgreSQL cannot be reached.
    public static func connect(
        url: String, instance: String, logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(ClusterError) -> Cluster {
        let address = try DatabaseAddress(url)
        let cluster = Cluster(instance: instance, address: address, eventLoopGroup: eventLoopGroup, logger: logger)
        let session = cluster.connections[0]
        do {
            _ = try await session.connection().get()
        } catch {
            throw .unreachable(address.description, reason: error.clusterReason)
        }
        try await ClusterSchema.create(on: session)
        await cluster.results.reload()
        return cluster
    }

    /// Starts carrying `pipeline`'s events to the other instances and theirs to it, and watching
    /// the claims it waits for.
    public func attach(_ pipeline: PhotoPipeline) {
        let started = [
            Task { [watcher] in await watcher.run() },
            Task { [listener] in await listener.run(pipeline) },
            Task { [relay] in await relay.run(pipeline) },
        ]
        tasks.withLock { $0 += started }
    }

    /// What `/healthz` says of the cluster.
    public var health: ClusterHealth {
        ClusterHealth(instance: instance, database: listener.isConnected ? "connected" : "lost", waitingFor: watcher.count)
    }

    /// Stops listening and relaying and closes the sessions (PostgreSQL lets go of this instance's claims).
    public func stop() {
        tasks.withLock { tasks in
            tasks.forEach { $0.cancel() }
            tasks.removeAll()
        }
        connections.forEach { $0.close() }
    }
}

/// The cluster part of `/healthz`.
public struct ClusterHealth: Sendable, Encodable {
    /// This instance's name.
    public var instance: String
    /// `connected`, or `lost` while PostgreSQL is unreachable (the instance serves what it has).
    public var database: String
    /// Photos whose work another instance holds, waited for here.
    public var waitingFor: Int
}
