import Foundation
import HTTPTransfer
import Logging
import PhotoPipeline
import SampleOrigin

extension Application {
    /// Loads the photo list: the sample origin, a folder of photos, or the configured data source,
    /// and tells every open stream the outcome.
    static func load(into context: AppContext, broadcaster: EventBroadcaster) async -> SampleOrigin? {
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
            let limits = configuration.transferLimits(namedOrigin: origin?.dataSourceURL)
            var entries = try await loadDataSource(from: location, limits: limits, logger: logger)
            if let origin {
                // The origin's port changes each run; its photos do not.
                for position in entries.indices {
                    entries[position].cacheKey = origin.stableKey(for: entries[position].url)
                }
            }
            let loadedEntries = entries
            var pipelineConfiguration = configuration.pipeline
            pipelineConfiguration.transferLimits = limits
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
                let disk = DiskCache(
                    directory: URL(fileURLWithPath: configuration.imageCacheDirectory), budget: configuration.pipeline.diskBudgetBytes
                ) { event in
                    logger.warning("\(event)")
                }
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
            logger.warning("data source not reachable yet; trying again", metadata: ["source": "\(location)", "in": "\(wait)"])
            try await Task.sleep(for: wait)
            wait *= 2
            attempt += 1
        }
    }
}
