import FlyingFox
import FlyingSocks
import Foundation
import HTTPTransfer
import Logging
import Mustache
import PhotoPipeline
import SampleOrigin
import Synchronization

/// The running server: HTTP routes, viewers, and the photo list loading behind them.
///
/// `start` is used by `classic-photos serve` and by the tests alike.
public final class Application: Sendable {
    /// The settings it runs with.
    public let configuration: ServerConfiguration
    /// The port it listens on (useful when configured with 0).
    public let port: UInt16

    let context: AppContext
    private let server: HTTPServer
    private let serverTask: Task<Void, any Error>
    private let loading: Task<SampleOrigin?, Never>
    private let background: Task<Void, Never>
    private let stopping = Mutex(false)

    private init(
        configuration: ServerConfiguration, port: UInt16, context: AppContext, server: HTTPServer,
        serverTask: Task<Void, any Error>, loading: Task<SampleOrigin?, Never>, background: Task<Void, Never>
    ) {
        self.configuration = configuration
        self.port = port
        self.context = context
        self.server = server
        self.serverTask = serverTask
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
        let library = PhotoLibrary()
        let viewers = ViewerRegistry(maxViewers: configuration.maxViewers, idleTimeout: configuration.viewerIdleTimeout)
        var logger = Logger(label: "classic-photos")
        logger.logLevel = configuration.logLevel
        let context = AppContext(
            configuration: configuration, library: library, viewers: viewers, templates: templates,
            version: String(UInt64(Date().timeIntervalSince1970 * 1000), radix: 36),
            metrics: ServerMetrics(), logger: logger)

        let address: sockaddr_in
        do {
            address = try .inet(ip4: configuration.host, port: configuration.port)
        } catch {
            throw ApplicationError.cannotListen("\(configuration.host):\(configuration.port)", "\(error)")
        }
        let timeout = configuration.requestTimeout
        let server = HTTPServer(
            address: address,
            timeout: Double(timeout.components.seconds) + Double(timeout.components.attoseconds) * 1e-18,
            pool: NoDelaySocketPool(base: HTTPServer.defaultPool()),
            logger: .disabled)
        await Routes.install(on: server, context: context)
        let serverTask = Task { try await server.run() }
        do {
            try await server.waitUntilListening(timeout: 10)
        } catch {
            serverTask.cancel()
            throw ApplicationError.cannotListen("\(configuration.host):\(configuration.port)", "\(error)")
        }
        guard case .ip4(_, let port) = await server.listeningAddress else {
            serverTask.cancel()
            throw ApplicationError.cannotListen("\(configuration.host):\(configuration.port)", "no IPv4 address")
        }

        logger.info("listening", metadata: ["address": "\(configuration.host):\(port)", "strategy": "\(configuration.strategy.name)"])
        let broadcaster = EventBroadcaster(
            viewers: viewers, library: library, tick: configuration.tick, heartbeat: configuration.heartbeatInterval,
            memoryLimit: configuration.effectiveMemoryLimit, logger: logger)
        let loading = Task { await load(into: context, broadcaster: broadcaster) }
        let background = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await broadcaster.runTicks() }
                group.addTask {
                    _ = await loading.value
                    if let pipeline = library.pipeline { await broadcaster.forwardEvents(of: pipeline) }
                }
            }
        }
        return Application(
            configuration: configuration, port: port, context: context, server: server,
            serverTask: serverTask, loading: loading, background: background)
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
            try await serverTask.value
        } catch where stopping.withLock({ $0 }) {
            return
        }
    }

    /// Stops: tells viewers, ends their streams, cancels work, stops listening and the origin.
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
        context.library.pipeline?.shutdown()
        await server.stop(timeout: 2)
        serverTask.cancel()
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
                origin = try await SampleOrigin.start(configuration.sample, folder: configuration.photosDirectory)
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
            let disk = try DiskCache(
                directory: URL(fileURLWithPath: configuration.imageCacheDirectory), budget: configuration.pipeline.diskBudgetBytes)
            let pipeline = PhotoPipeline(entries: entries, configuration: configuration.pipeline, disk: disk)
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

/// Why the server could not start.
public enum ApplicationError: Error, Sendable, CustomStringConvertible {
    case templates(String, String)
    case cannotListen(String, String)

    public var description: String {
        switch self {
        case .templates(let directory, let reason): "cannot load templates from \(directory): \(reason)"
        case .cannotListen(let address, let reason): "cannot listen on \(address): \(reason)"
        }
    }
}
