import Foundation
import HTTPTypes
import Hummingbird
public import Logging
import Mustache
public import NIOCore
public import PhotoPipeline
public import ServiceLifecycle
import PhotoTransport

/// The HTTP side of the server: the routes, viewers, labs and event streams over one `AppContext`,
/// made from the configuration. It listens when `PhotoServer` runs `server` in its service group.
public final class WebApplication: Sendable {
    /// The settings it runs with.
    public let configuration: WebConfiguration
    /// The connection cap in force.
    public let maxConnections: Int
    /// The open files limit it was worked out from.
    public let openFilesLimit: Int
    let context: AppContext
    /// Open connections per client address, and the refusals past `--connections-per-client`.
    let connections: ConnectionsPerClient
    /// With TLS: the certificate and key served, read again by `reloadCertificates()`.
    let certificates: CertificateStore?
    let limits: GuardedHTTP1Channel.Limits
    /// The handlers of the routes whose answers can be ready, shared by the router and `readyRoutes`.
    let answering: Routes.Answering
    /// Those routes, answered on the event loop by their own handlers.
    let readyRoutes: ReadyRoutes
    private let responder: RouterResponder<PhotoRequestContext>

    /// Reads the templates, the page's files and the TLS files; `pipeline` is the list's pipeline
    /// settings (the bounds lab lanes share come from them), `cluster` the instances' shared
    /// database when configured, `origin` the built-in origin (serving the list or not).
    public init(
        _ configuration: WebConfiguration, pipeline: PipelineConfiguration, cluster: (any ClusterMembership)?,
        origin: any OriginServing
    ) async throws(ApplicationError) {
        let templates: MustacheLibrary
        do {
            templates = try await MustacheLibrary(directory: configuration.templatesDirectory)
        } catch {
            throw ApplicationError.templates(configuration.templatesDirectory, "\(error)")
        }
        for name in ["index", "row"] where templates.getTemplate(named: name) == nil {
            throw ApplicationError.templates(configuration.templatesDirectory, "\(name).mustache is missing")
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
        let viewers = ViewerRegistry(
            maxViewers: configuration.maxViewers, viewersPerClient: configuration.effectiveViewersPerClient,
            sharedStreamsPerClient: configuration.sharedStreamsPerClient,
            unsent: UnsentEventBytes(budget: configuration.unsentEventsBudgetBytes))
        let presentations = Presentations(settings: .init(
            followersPerPresentation: configuration.followersPerPresentation,
            presentationsPerClient: configuration.presentationsPerClient, roomSize: configuration.roomSize))
        let library = PhotoLibrary()
        let routerFields = HTTPFields.routerMiddleware(StrictTransportSecurity(configuration))
        let list = PhotoChannel(
            library: library, viewers: viewers, settings: configuration.listChannel,
            totals: ServerTotals(cluster: cluster, unsent: viewers.unsent), presentations: presentations, logger: logger)
        let labs = LabRegistry(
            settings: .init(
                maxLabs: configuration.maxLabs, labsPerClient: configuration.effectiveLabsPerClient,
                maxImageTransfers: configuration.maxLabImageTransfers,
                lane: configuration.labLaneChannel, laneMemoryBudgetBytes: configuration.labLaneMemoryBudget(pipeline)),
            bounds: configuration.makeSharedBounds(pipeline), viewers: viewers, origin: origin, logger: logger)
        let context = AppContext(
            configuration: configuration, list: list, viewers: viewers, labs: labs, templates: templates,
            staticFiles: staticFiles, rateLimiter: ClientRateLimiter(perMinute: configuration.viewersPerMinute),
            retries: RetryLimits(perMinute: configuration.retriesPerMinute),
            trustedProxies: trustedProxies, metrics: ServerMetrics(), logger: logger, cluster: cluster, origin: origin,
            presentations: presentations, photoList: PhotoListAnswers(library: library, routerFields: routerFields))
        openFilesLimit = OpenFilesLimit.raise()
        maxConnections = configuration.effectiveMaxConnections(openFilesLimit: openFilesLimit)
        limits = GuardedHTTP1Channel.Limits(
            maxHeaderBytes: configuration.maxHeaderBytes, maxURLLength: configuration.maxURLLength,
            idleTimeout: TimeAmount(configuration.idleTimeout), sendTimeout: TimeAmount(configuration.sendTimeout),
            connections: ConnectionsPerClient(
                limit: configuration.connectionsPerClient, trusted: trustedProxies, logger: logger,
                beyond: { Presentations.roomConnections * (presentations.roomPlaces(of: $0) + labs.presentations.roomPlaces(of: $0)) }))
        certificates = try await Self.loadCertificates(configuration)
        do {
            answering = try Routes.Answering(context: context)
            responder = try Routes.router(context: context, answering: answering).buildResponder()
        } catch {
            throw ApplicationError.templates(configuration.templatesDirectory, "\(error)")
        }
        readyRoutes = Routes.ready(answering, metrics: context.metrics)
        self.configuration = configuration
        self.context = context
        connections = limits.connections
    }

    /// The server's log.
    public var logger: Logger { context.logger }

    /// The photo list's pipeline, once loaded.
    public var pipeline: PhotoPipeline? { context.library.pipeline }

    /// The bounds lab lanes share with the list: the list's pipeline hosts them.
    public var sharedBounds: SharedBounds { context.labs.bounds }

    /// The HTTP server on the configured address; it calls `onServerRunning` once it listens.
    public func server(onServerRunning: @escaping @Sendable (any Channel) async -> Void) -> some Service {
        return Hummingbird.Application(
            responder: responder,
            server: Self.serverBuilder(limits, configuration: configuration, certificates: certificates, ready: readyRoutes),
            configuration: .init(
                address: .hostname(configuration.host, port: Int(configuration.port)),
                serverName: nil,
                backlog: 1_024,
                availableConnectionsDelegate: .maximum(maxConnections, logger: logger)),
            onServerRunning: onServerRunning,
            logger: Self.quieter(logger))
    }

    /// Hummingbird's own logging, one level quieter than ours (it logs every connection at debug).
    package static func quieter(_ logger: Logger) -> Logger {
        var logger = logger
        if logger.logLevel < .notice { logger.logLevel = .notice }
        return logger
    }

    /// Every `tick` until the task is cancelled: viewers whose streams left are dropped, labs that
    /// lost a lane's viewer are ended, and every channel (the list, each lab lane) ticks; every
    /// heartbeat interval, shared streams that carry nobody get a heartbeat.
    public func runTicks() async {
        var lastHeartbeat = ContinuousClock.now
        while !Task.isCancelled {
            do { try await Task.sleep(for: configuration.tick) } catch { return }
            let now = ContinuousClock.now
            if now - lastHeartbeat >= configuration.heartbeatInterval {
                lastHeartbeat = now
                context.viewers.streams.heartbeatEmpty()
            }
            for session in context.viewers.dropIdle(now: now) {
                logger.debug("viewer left", metadata: ["viewer": "\(session.id)", "viewers": "\(context.viewers.count)"])
            }
            context.labs.endAbandoned()
            for channel in [context.list] + context.labs.channels {
                channel.tick(now: now)
            }
            context.presentations.tick(on: context.library.pipeline)
        }
    }

    /// Forwards the list pipeline's events to its viewers until its stream ends or the task is cancelled.
    public func forwardEvents(of pipeline: PhotoPipeline) async {
        await context.list.forwardEvents(of: pipeline)
    }

    /// Ends every viewer's and lab's stream with a `shutdown` event; their work is cancelled.
    public func closeViewers() {
        logger.info("stopping", metadata: ["viewers": "\(context.viewers.count)"])
        let shutdown = EventOutbox.Payload(name: .shutdown, data: EventPayloads.json(EventPayloads.Shutdown(reason: "the server is stopping")))
        for session in context.viewers.removeAll() {
            session.outbox.enqueue(shutdown)
            session.close()
        }
        context.labs.endAll()
    }
}
