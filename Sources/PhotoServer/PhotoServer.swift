import Logging
import PhotoCluster
public import PhotoPipeline
public import PhotoWeb
import ServiceLifecycle
import UnixSignals

/// The running server, wired from its configuration: the cluster's database when configured, the
/// HTTP side (`WebApplication`) and one service group that runs the HTTP server (and its redirect
/// to HTTPS), the photo list's loading and events, the viewers' and labs' ticks, the memory monitor,
/// and for `serve` the signals: SIGTERM and SIGINT stop it gracefully, SIGHUP reloads the TLS files.
///
/// `start` is used by `classic-photos serve` and by the tests alike.
public final class PhotoServer: Sendable {
    /// The settings it runs with.
    public let configuration: ServerConfiguration
    /// The routes, viewers and labs.
    public let web: WebApplication
    /// The port it listens on (useful when configured with 0).
    public let port: UInt16
    /// The plain-HTTP port that redirects to HTTPS, if one runs.
    public let redirectPort: UInt16?
    private let group: ServiceGroup
    private let running: Task<Void, any Error>
    private let loaded: Completion<Void>
    /// Set once a graceful shutdown began (by `stop()` or a signal): `run()` then ends quietly.
    private let stopping: Completion<Void>

    private init(
        configuration: ServerConfiguration, web: WebApplication, port: UInt16, redirectPort: UInt16?, group: ServiceGroup,
        running: Task<Void, any Error>, loaded: Completion<Void>, stopping: Completion<Void>
    ) {
        self.configuration = configuration
        self.web = web
        self.port = port
        self.redirectPort = redirectPort
        self.group = group
        self.running = running
        self.loaded = loaded
        self.stopping = stopping
    }

    /// Starts listening at once, then loads the photo list in the background (the page says
    /// "loading" meanwhile). With `handlingSignals` (the `serve` command), SIGTERM and SIGINT stop
    /// it and SIGHUP reads the TLS files again.
    public static func start(_ configuration: ServerConfiguration, handlingSignals: Bool = false) async throws -> PhotoServer {
        let cluster = try await connectCluster(configuration)
        let web: WebApplication
        let origin = SampleOriginLink(configuration.sample)
        do {
            web = try await WebApplication(
                configuration.web, pipeline: configuration.pipeline, cluster: cluster.map(ClusterLink.init), origin: origin)
        } catch {
            cluster?.stop()
            throw error
        }
        let loaded = Completion<Void>(), stopping = Completion<Void>()
        let mainPort = Completion<Int?>(), redirectPort = Completion<Int?>()
        let services = Services(
            configuration: configuration, web: web, cluster: cluster, origin: origin, loaded: loaded, stopping: stopping, handlingSignals: handlingSignals)
        var groupConfiguration = ServiceGroupConfiguration(
            services: services.all(mainPort: mainPort, redirectPort: redirectPort),
            gracefulShutdownSignals: handlingSignals ? [.sigterm, .sigint] : [],
            logger: WebApplication.quieter(web.logger))
        // A client that never reads its response cannot hold the shutdown: past this the rest is cut.
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(4)
        // Past this ServiceLifecycle ends the process (fatalError): only for tasks truly stuck. 2 s was
        // reached by a loaded machine closing a thousand streams, and one such stop ended every other
        // server of the process with it (a test run holds dozens).
        groupConfiguration.maximumCancellationDuration = .seconds(30)
        let group = ServiceGroup(configuration: groupConfiguration)
        let running = Task {
            defer {
                mainPort.complete(nil)
                redirectPort.complete(nil)
                loaded.complete()
            }
            try await group.run()
        }
        let address = "\(configuration.web.host):\(configuration.web.port)"
        guard let port = await mainPort.wait() else {
            throw ApplicationError.cannotListen(address, await failure(of: running))
        }
        var redirect: Int?
        if let redirectAt = configuration.web.httpRedirectPort, configuration.web.tls != nil {
            guard let listening = await redirectPort.wait() else {
                throw ApplicationError.cannotListen("\(configuration.web.host):\(redirectAt)", await failure(of: running))
            }
            redirect = listening
        }
        web.logger.info("listening", metadata: [
            "address": "\(configuration.web.tls == nil ? "http" : "https")://\(configuration.web.host):\(port)",
            "strategy": "\(configuration.web.strategy.name)",
            "max connections": "\(web.maxConnections)", "open files limit": "\(web.openFilesLimit)",
        ])
        return PhotoServer(
            configuration: configuration, web: web, port: UInt16(port), redirectPort: redirect.map(UInt16.init),
            group: group, running: running, loaded: loaded, stopping: stopping)
    }

    /// The instances' shared database, when configured.
    private static func connectCluster(_ configuration: ServerConfiguration) async throws(ApplicationError) -> Cluster? {
        guard let url = configuration.cluster.databaseURL else { return nil }
        var logger = Logger(label: "classic-photos")
        logger.logLevel = configuration.web.logLevel
        do {
            return try await Cluster.connect(url: url, instance: configuration.cluster.instanceName, logger: logger)
        } catch {
            throw ApplicationError.database(error.description)
        }
    }

    /// Why the group ended before a server listened.
    private static func failure(of running: Task<Void, any Error>) async -> String {
        do {
            try await running.value
            return "the server stopped at once"
        } catch {
            return "\(error)"
        }
    }

    /// Waits until the photo list has loaded or failed.
    public func waitUntilLoaded() async {
        await loaded.wait()
    }

    /// The photo list's pipeline, once loaded.
    public var pipeline: PhotoPipeline? { web.pipeline }

    /// Reads the TLS certificate and key files again (as SIGHUP does).
    public func reloadCertificates() async throws(ApplicationError) {
        try await web.reloadCertificates()
    }

    /// Runs until the server stops (or fails).
    public func run() async throws {
        do {
            try await running.value
        } catch where stopping.isComplete {
            return
        }
    }

    /// Stops: tells viewers, ends their streams, cancels work, stops listening (open requests
    /// finish first, for at most a few seconds) and the origin.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        web.logger.info("stopped")
    }
}
