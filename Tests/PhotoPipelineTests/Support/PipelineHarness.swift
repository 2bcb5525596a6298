import Foundation
import HTTPTransfer
@testable import PhotoPipeline
import Testing
import TestOrigin

/// A pipeline wired to an origin server of its own on loopback, with its own transfer loop and an
/// event recorder. `close()` stops all of it.
final class PipelineHarness: Sendable {
    let origin: TestOrigin
    let loop: TransferLoop
    let pipeline: PhotoPipeline
    let recorder: EventRecorder

    /// Serves `photos` (path -> behaviour) and lists them as entries named after their paths
    /// (so list order is the paths' order); `claims` decides who runs each photo's work, `results`
    /// keeps what it made beyond memory (nothing, by default). `speedChecks` keeps the transfer's
    /// stall and least-average-speed checks: off by default, since a test holds its origin as long as
    /// it needs (longer than the checks' 15 s on a loaded machine); the checks have tests of their own.
    init(
        photos: [(path: String, behaviour: TestOrigin.Behaviour)],
        configuration: PipelineConfiguration = PipelineConfiguration(maxConcurrentDownloads: 4, maxConcurrentFiltrations: 2),
        claims: any WorkClaiming = LocalWorkClaims(), results: (any ResultStoring)? = nil, speedChecks: Bool = false
    ) throws {
        let origin = try TestOrigin(routes: Dictionary(uniqueKeysWithValues: photos.map { ($0.path, $0.behaviour) }))
        self.origin = origin
        loop = TransferLoop(name: "test-transfer-loop")
        let entries = photos.map { PhotoEntry(name: $0.path, url: origin.url($0.path)) }
        // The origin is on loopback, which only a named origin may be: the harness names its own.
        var configuration = configuration
        if !speedChecks {
            configuration.transferLimits.lowSpeedLimit = 0
            configuration.transferLimits.minimumAverageSpeed = 0
        }
        configuration.transferLimits.allowedSources = configuration.transferLimits.allowedSources.allowing(
            try #require(AllowedSources.Entry(origin: origin.url("/"))))
        pipeline = PhotoPipeline(entries: entries, configuration: configuration, loop: loop, disk: results, claims: claims)
        recorder = EventRecorder(pipeline)
    }

    /// `count` ordinary JPEG photos at /p00.jpg, /p01.jpg, ...
    convenience init(jpegs count: Int, configuration: PipelineConfiguration = PipelineConfiguration(maxConcurrentDownloads: 4, maxConcurrentFiltrations: 2)) throws {
        let bytes = TestPhotos.jpeg()
        try self.init(
            photos: (0..<count).map { (String(format: "/p%02d.jpg", $0), .body(contentType: "image/jpeg", bytes: bytes)) },
            configuration: configuration)
    }

    func controller(strategy: SchedulingStrategy = .visible) -> PhotoListController {
        PhotoListController(pipeline: pipeline, strategy: strategy)
    }

    /// Stops the pipeline and the origin at once; the loop's thread ends on its own, awaited off
    /// Swift concurrency's threads (a blocking wait in a test's `defer` would hold one of them).
    func close() {
        pipeline.shutdown()
        origin.stop()
        let loop = loop
        Task.detached { await loop.shutdownAndWait() }
    }
}
