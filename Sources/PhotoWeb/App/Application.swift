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
import Locking

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
    /// With TLS: the certificate and key served, read again by `reloadCertificates()`.
    let certificates: CertificateStore?
    private let server: RunningServer
    /// With TLS and `--http-redirect-port`: the plain-HTTP server that redirects to HTTPS.
    let redirect: RunningServer?
    private let loading: Task<SampleOrigin?, Never>
    private let background: Task<Void, Never>
    private let stopping = Locked(false)

    private init(
        configuration: ServerConfiguration, port: UInt16, maxConnections: Int, context: AppContext,
        connections: ConnectionsPerClient, certificates: CertificateStore?, server: RunningServer, redirect: RunningServer?,
        loading: Task<SampleOrigin?, Never>, background: Task<Void, Never>
    ) {
        self.configuration = configuration
        self.port = port
        self.maxConnections = maxConnections
        self.context = context
        self.connections = connections
        self.certificates = certificates
        self.server = server
        self.redirect = redirect
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
            connectTimeout: configuration.viewerConnectTimeout,
            unsent: UnsentEventBytes(budget: configuration.unsentEventsBudgetBytes))
        let labs = LabRegistry(
            settings: .init(
                maxLabs: configuration.maxLabs, maxImageTransfers: configuration.maxLabImageTransfers, idleTimeout: configuration.labIdleTimeout,
                connectTimeout: configuration.viewerConnectTimeout, laneMemoryBudgetBytes: configuration.labLaneMemoryBudget),
            bounds: configuration.makeSharedBounds())
        var context = AppContext(
            configuration: configuration, library: library, viewers: viewers, labs: labs, templates: templates,
            staticFiles: staticFiles, rateLimiter: ClientRateLimiter(perMinute: configuration.viewersPerMinute),
            retries: RetryLimits(perMinute: configuration.retriesPerMinute),
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
        let certificates = try await loadCertificates(configuration)
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
                    server: serverBuilder(limits, configuration: configuration, certificates: certificates),
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
        let redirect = try await startRedirect(configuration, httpsPort: port, limits: limits, logger: logger)

        logger.info("listening", metadata: [
            "address": "\(configuration.tls == nil ? "http" : "https")://\(configuration.host):\(port)", "strategy": "\(configuration.strategy.name)",
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
            connections: limits.connections, certificates: certificates, server: server, redirect: redirect, loading: loading, background: background)
    }

    /// Hummingbird's own logging, one level quieter than ours (it logs every connection at debug).
    static func quieter(_ logger: Logger) -> Logger {
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
        // A data source that drips holds the list's loading: its transfer is cancelled with it.
        loading.cancel()
        context.labs.endAll()
        context.library.pipeline?.shutdown()
        context.cluster?.stop()
        // A client that never reads its response cannot hold the shutdown: after 2 s the rest is cut.
        await server.stop(cutOff: .seconds(2))
        await redirect?.stop(cutOff: .seconds(2))
        await loading.value?.stop()
        context.logger.info("stopped")
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
