import Foundation
import HTTPTransfer
import Hummingbird
import Logging
import Mustache
import NIOCore
import PhotoCluster
import PhotoPipeline
import SampleOrigin
import ServiceLifecycle
import Synchronization

/// The running server: HTTP routes (Hummingbird on SwiftNIO), viewers, and the photo list loading
/// behind them.
///
/// `start` is used by `classic-photos serve` and by the tests alike.
public final class Application: Sendable {
    /// The settings it runs with.
    public let configuration: ServerConfiguration
    /// The port it listens on (useful when configured with 0).
    public let port: UInt16
    /// The connection cap in force.
    public let maxConnections: Int

    let context: AppContext
    /// Open connections per client address, and the refusals past `--connections-per-client`.
    let connections: ConnectionsPerClient
    private let server: RunningServer
    private let loading: Task<SampleOrigin?, Never>
    private let background: Task<Void, Never>
    private let stopping = Mutex(false)

    private init(
        configuration: ServerConfiguration, port: UInt16, maxConnections: Int, context: AppContext,
        connections: ConnectionsPerClient, server: RunningServer, loading: Task<SampleOrigin?, Never>, background: Task<Void, Never>
    ) {
        self.configuration = configuration
        self.port = port
        self.maxConnections = maxConnections
        self.context = context
        self.connections = connections
        self.server = server
        self.loading = loading
        self.background = background
    }

    /// Starts listening at once, then loads the photo list in the background (the page says
    /// "loading" meanwhile): the sample origin, a folder of photos, or the configured data source.
    public static func start(_ configuration: ServerConfiguration) async throws -> Application {
        let templates: MustacheLibrary
        do {
            templates = try await MustacheLibrary(directory: configuration.templatesDirectory)
        } catch {
            throw ApplicationError.templates(configuration.templatesDirectory, "\(error)")
        }
        guard templates.getTemplate(named: "index") != nil else {
            throw ApplicationError.templates(configuration.templatesDirectory, "index.mustache is missing")
        }
        let trustedProxies: ClientAddress.TrustedProxies
        do {
            trustedProxies = try ClientAddress.TrustedProxies(configuration.trustedProxies)
        } catch {
            throw ApplicationError.setting(error.description)
        }
        var logger = Logger(label: "classic-photos")
        logger.logLevel = configuration.logLevel
        let staticFiles = StaticFiles(directory: configuration.publicDirectory)
        if staticFiles.files.isEmpty {
            logger.warning("no static files: the page will have no script or styles", metadata: ["public-dir": "\(configuration.publicDirectory)"])
        }
        let library = PhotoLibrary()
        let viewers = ViewerRegistry(
            maxViewers: configuration.maxViewers, idleTimeout: configuration.viewerIdleTimeout,
            connectTimeout: configuration.viewerConnectTimeout)
        let labs = LabRegistry(
            settings: .init(
                maxLabs: configuration.maxLabs, idleTimeout: configuration.labIdleTimeout,
                connectTimeout: configuration.viewerConnectTimeout, laneMemoryBudgetBytes: configuration.labLaneMemoryBudget),
            bounds: configuration.makeSharedBounds())
        var context = AppContext(
            configuration: configuration, library: library, viewers: viewers, labs: labs, templates: templates,
            staticFiles: staticFiles, rateLimiter: ViewerRateLimiter(perMinute: configuration.viewersPerMinute),
            trustedProxies: trustedProxies, metrics: ServerMetrics(), logger: logger)
        if let url = configuration.databaseURL {
            do {
                context.cluster = try await Cluster.connect(url: url, instance: configuration.instanceName, logger: logger)
            } catch {
                throw ApplicationError.database(error.description)
            }
        }

        let openFiles = OpenFilesLimit.raise()
        let maxConnections = configuration.effectiveMaxConnections(openFilesLimit: openFiles)
        let limits = GuardedHTTP1Channel.Limits(
            maxHeaderBytes: configuration.maxHeaderBytes, maxURLLength: configuration.maxURLLength,
            idleTimeout: TimeAmount(configuration.idleTimeout), sendTimeout: TimeAmount(configuration.sendTimeout),
            connections: ConnectionsPerClient(limit: configuration.connectionsPerClient, trusted: trustedProxies, logger: logger))
        let router: Router<PhotoRequestContext>
        do {
            router = try Routes.router(context: context)
        } catch {
            throw ApplicationError.templates(configuration.templatesDirectory, "\(error)")
        }
        let server: RunningServer
        do {
            server = try await RunningServer.start(logger: quieter(logger)) { onServerRunning in
                Hummingbird.Application(
                    responder: router.buildResponder(),
                    server: GuardedHTTP1Channel.builder(limits),
                    configuration: .init(
                        address: .hostname(configuration.host, port: Int(configuration.port)),
                        serverName: nil,
                        backlog: 1_024,
                        availableConnectionsDelegate: .maximum(maxConnections, logger: logger)),
                    onServerRunning: onServerRunning,
                    logger: quieter(logger))
            }
        } catch {
            throw ApplicationError.cannotListen("\(configuration.host):\(configuration.port)", error.reason)
        }
        let port = server.port

        logger.info("listening", metadata: [
            "address": "\(configuration.host):\(port)", "strategy": "\(configuration.strategy.name)",
            "max connections": "\(maxConnections)", "open files limit": "\(openFiles)",
        ])
        let broadcaster = EventBroadcaster(
            viewers: viewers, library: library, tick: configuration.tick, heartbeat: configuration.heartbeatInterval,
            memoryLimit: configuration.effectiveMemoryLimit, logger: logger)
        let loading = Task { await load(into: context, broadcaster: broadcaster) }
        let background = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await broadcaster.runTicks() }
                // Lab streams are pinged often: a write is how a page that left is noticed.
                let labHeartbeat = min(configuration.heartbeatInterval, configuration.labIdleTimeout / 5)
                group.addTask { await labs.runTicks(tick: configuration.tick, heartbeat: labHeartbeat) }
                group.addTask {
                    _ = await loading.value
                    if let pipeline = library.pipeline { await broadcaster.forwardEvents(of: pipeline) }
                }
            }
        }
        return Application(
            configuration: configuration, port: UInt16(port), maxConnections: maxConnections, context: context,
            connections: limits.connections, server: server, loading: loading, background: background)
    }

    /// Hummingbird's own logging, one level quieter than ours (it logs every connection at debug).
    private static func quieter(_ logger: Logger) -> Logger {
        var logger = logger
        if logger.logLevel < .notice { logger.logLevel = .notice }
        return logger
    }

    /// Waits until the photo list has loaded or failed.
    public func waitUntilLoaded() async {
        _ = await loading.value
    }

    /// The photo list's pipeline, once loaded.
    public var pipeline: PhotoPipeline? { context.library.pipeline }

    /// Runs until the server stops (or fails).
    public func run() async throws {
        do {
            try await server.waitUntilStopped()
        } catch where stopping.withLock({ $0 }) {
            return
        }
    }

    /// Stops: tells viewers, ends their streams, cancels work, stops listening (open requests
    /// finish first) and the origin.
    public func stop() async {
        let alreadyStopping = stopping.withLock { stopping in
            defer { stopping = true }
            return stopping
        }
        guard !alreadyStopping else { return }
        context.logger.info("stopping", metadata: ["viewers": "\(context.viewers.count)"])
        let shutdown = EventOutbox.Payload(name: .shutdown, data: EventPayloads.json(EventPayloads.Shutdown(reason: "the server is stopping")))
        for session in context.viewers.removeAll() {
            session.outbox.enqueue(shutdown)
            session.close()
        }
        background.cancel()
        context.labs.endAll()
        context.library.pipeline?.shutdown()
        context.cluster?.stop()
        // A client that never reads its response cannot hold the shutdown: after 2 s the rest is cut.
        await server.stop(cutOff: .seconds(2))
        await loading.value?.stop()
        context.logger.info("stopped")
    }

    private static func load(into context: AppContext, broadcaster: EventBroadcaster) async -> SampleOrigin? {
        let configuration = context.configuration
        let logger = context.logger
        var origin: SampleOrigin?
        let status: PhotoLibrary.Status
        do {
            let location: String
            if let source = configuration.source {
                location = source
            } else {
                let library = context.library, viewers = context.viewers
                origin = try await SampleOrigin.start(configuration.sample, folder: configuration.photosDirectory) { made, total in
                    // A first start makes the photos for seconds: open pages say how far it is.
                    guard library.noteSamples(made: made, total: total) else { return }
                    let source = EventOutbox.Payload(name: .source, data: EventPayloads.json(library.source))
                    viewers.all.forEach { $0.outbox.enqueue(source) }
                }
                location = origin!.dataSourceURL
                logger.info("sample origin serving", metadata: ["url": "\(location)", "folder": "\(configuration.photosDirectory ?? "generated samples")"])
                for skipped in origin!.skipped {
                    logger.warning("photo folder file skipped", metadata: ["file": "\(skipped.file)", "reason": "\(skipped.reason)"])
                }
            }
            var entries = try await PhotoDataSource.load(from: location, limits: configuration.pipeline.transferLimits)
            if let origin {
                // The origin's port changes each run; its photos do not.
                for position in entries.indices {
                    entries[position].cacheKey = origin.stableKey(for: entries[position].url)
                }
            }
            let loadedEntries = entries
            var pipelineConfiguration = configuration.pipeline
            // The list is the host of the bounds lab lanes share.
            pipelineConfiguration.sharedBounds = context.labs.bounds
            let listConfiguration = pipelineConfiguration
            let cluster = context.cluster
            // Scanning the disk cache reads a folder and files: off the threads requests run on.
            let pipeline = try await Blocking.run {
                if let cluster {
                    return PhotoPipeline(
                        entries: loadedEntries, configuration: listConfiguration, disk: cluster.results, claims: cluster.claims)
                }
                let disk = try DiskCache(
                    directory: URL(fileURLWithPath: configuration.imageCacheDirectory), budget: configuration.pipeline.diskBudgetBytes)
                return PhotoPipeline(entries: loadedEntries, configuration: listConfiguration, disk: disk)
            }
            cluster?.attach(pipeline)
            let done = pipeline.records.filter { $0.state == .filtered }.count
            logger.info("data source loaded", metadata: [
                "source": "\(location)", "photos": "\(entries.count)",
                "unusable": "\(entries.filter { $0.problem != nil }.count)", "already filtered": "\(done)",
            ])
            status = .ready(pipeline)
        } catch {
            logger.error("data source failed", metadata: ["reason": "\(error)"])
            status = .failed("\(error)")
        }
        context.labs.attach(origin)
        context.library.finish(with: status, skipped: origin?.skipped ?? [])
        if let pipeline = context.library.pipeline {
            for session in context.viewers.all {
                _ = session.controller(on: pipeline, strategy: configuration.strategy)
            }
        }
        // Every open stream learns the outcome: a fresh snapshot carries the list or the error.
        for session in context.viewers.all {
            session.outbox.requireSnapshot()
        }
        return origin
    }
}

/// Runs blocking work (file reads, folder scans) on Dispatch's threads, never on the cooperative
/// pool that answers requests.
enum Blocking {
    static func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}

/// Why the server could not start.
public enum ApplicationError: Error, Sendable, CustomStringConvertible {
    case templates(String, String)
    case cannotListen(String, String)
    case setting(String)
    case database(String)

    public var description: String {
        switch self {
        case .templates(let directory, let reason): "cannot load templates from \(directory): \(reason)"
        case .cannotListen(let address, let reason): "cannot listen on \(address): \(reason)"
        case .setting(let reason): reason
        case .database(let reason): reason
        }
    }
}
