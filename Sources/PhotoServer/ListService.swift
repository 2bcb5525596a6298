import Foundation
import HTTPTransfer
import Logging
import PhotoCluster
import PhotoPipeline
import PhotoWeb
import SampleOrigin
import ServiceLifecycle

/// The photo list's lifetime, one service of the server's group: loads the list (the sample origin,
/// a folder of photos, or the configured data source), forwards its pipeline's events to the viewers
/// until the group shuts down, then ends its work, the origin and the cluster's sessions.
struct ListService: Service {
    let configuration: ServerConfiguration
    let web: WebApplication
    let cluster: Cluster?
    /// Completed once the list has loaded or failed.
    let loaded: Completion<Void>
    /// The built-in origin as the HTTP layer sees it, told when the origin starts.
    let link: SampleOriginLink

    func run() async {
        // A data source that drips holds the loading: a shutdown cancels its transfer.
        let origin = await cancelWhenGracefulShutdown { await load() }
        loaded.complete()
        if let pipeline = web.pipeline {
            await cancelWhenGracefulShutdown { await web.forwardEvents(of: pipeline) }
        }
        try? await gracefulShutdown()
        web.pipeline?.shutdown()
        cluster?.stop()
        await origin?.stop()
    }

    /// Loads the photo list and tells every open stream the outcome; the sample origin, when it serves the list.
    private func load() async -> RunningOrigin? {
        let logger = web.logger
        var origin: RunningOrigin?
        do {
            let location: String
            if let source = configuration.source {
                location = source
            } else {
                // A first start serves at once: each photo is made when first asked for, the rest in the background.
                let started = try await RunningOrigin.start(configuration.sample, folder: configuration.photosDirectory) { made, total in
                    if made == total { logger.info("sample photos made", metadata: ["photos": "\(total)"]) }
                }
                origin = started
                link.attach(started.origin)
                location = started.dataSourceURL
                logger.info("sample origin serving", metadata: [
                    "url": "\(location)", "folder": "\(configuration.photosDirectory ?? "generated samples")",
                    "photos to make in the background": "\(started.origin.photosToMake)",
                ])
                for skipped in started.origin.skipped {
                    logger.warning("photo folder file skipped", metadata: ["file": "\(skipped.file)", "reason": "\(skipped.reason)"])
                }
            }
            let limits = configuration.transferLimits(namedOrigin: origin?.dataSourceURL)
            var entries = try await Self.loadDataSource(from: location, limits: limits, logger: logger)
            if let origin {
                // The origin's port changes each run; its photos do not.
                for position in entries.indices {
                    entries[position].cacheKey = origin.stableKey(for: entries[position].url)
                }
            }
            let pipeline = try await makePipeline(entries, limits: limits)
            cluster?.attach(pipeline)
            let done = pipeline.stateCounts[PhotoRecordState.filtered.name] ?? 0
            logger.info("data source loaded", metadata: [
                "source": "\(URLCredentials.redacted(location))", "photos": "\(entries.count)",
                "unusable": "\(entries.filter { $0.problem != nil }.count)", "already filtered": "\(done)",
            ])
            web.listLoaded(pipeline)
        } catch {
            logger.error("data source failed", metadata: ["reason": "\(error)"])
            web.listFailed("\(error)")
        }
        return origin
    }

    /// The list's pipeline over `entries`, its results kept in the cluster's database or the disk cache.
    private func makePipeline(_ entries: [PhotoEntry], limits: TransferLimits) async throws -> PhotoPipeline {
        let configuration = self.configuration
        let logger = web.logger
        var pipelineConfiguration = configuration.pipeline
        pipelineConfiguration.transferLimits = limits
        // The list is the host of the bounds lab lanes share.
        pipelineConfiguration.sharedBounds = web.sharedBounds
        let listConfiguration = pipelineConfiguration
        let cluster = cluster
        // Scanning the disk cache reads a folder and files: off the threads requests run on.
        return try await Blocking.run {
            if let cluster {
                return PhotoPipeline(entries: entries, configuration: listConfiguration, disk: cluster.results, claims: cluster.claims)
            }
            let disk = DiskCache(
                directory: URL(fileURLWithPath: configuration.imageCacheDirectory), budget: configuration.pipeline.diskBudgetBytes
            ) { event in
                logger.warning("\(event)")
            }
            return PhotoPipeline(entries: entries, configuration: listConfiguration, disk: disk)
        }
    }

    /// The data source's entries. A fetch that could not even connect is tried twice more, 2 s and
    /// then 4 s later: an origin started beside this instance (a compose project, a cluster) may not
    /// answer yet, and a list that failed stays failed until a restart. Any other failure is final.
    static func loadDataSource(from location: String, limits: TransferLimits, logger: Logger) async throws -> [PhotoEntry] {
        var wait: Duration = .seconds(2)
        var attempt = 1
        while true {
            let failure: DataSourceError
            do {
                return try await PhotoDataSource.load(from: location, limits: limits)
            } catch {
                failure = error
            }
            guard case .fetchFailed(_, .connectTimeout) = failure, attempt < 3 else { throw failure }
            logger.warning("data source not reachable yet; trying again", metadata: ["source": "\(URLCredentials.redacted(location))", "in": "\(wait)"])
            try await Task.sleep(for: wait)
            wait *= 2
            attempt += 1
        }
    }
}
