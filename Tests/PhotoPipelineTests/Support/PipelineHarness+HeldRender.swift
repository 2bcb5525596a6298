@testable import PhotoPipeline
import Testing
import TestOrigin

/// A photo filtered, and its full-size render asked for and held at the shared filter bound's one
/// permit, which the test holds: `filtrations.release(.host)` lets the render go on. `close()` after.
struct HeldRender {
    let harness: PipelineHarness
    let filtrations: WorkPermits
    let render: Task<CachedImage, any Error>

    init() async throws {
        // Given a photo done, and shared bounds whose one filter permit the test holds (the render's gate)
        let filtrations = WorkPermits(capacity: 1, reservedForHost: 1)
        let bounds = SharedBounds(transfers: WorkPermits(capacity: 4, reservedForHost: 1), filtrations: filtrations, holder: .host)
        let harness = try PipelineHarness(
            photos: [("/big.jpg", .body(contentType: "image/jpeg", bytes: TestPhotos.jpeg(seed: 3, width: 640, height: 480)))],
            configuration: PipelineConfiguration(maxConcurrentDownloads: 4, maxConcurrentFiltrations: 2, sharedBounds: bounds))
        do {
            harness.controller().loadImagesForOnscreenRows(0...0)
            try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }
            #expect(filtrations.acquire(.host) { _ in } == .granted)
        } catch {
            harness.close()
            throw error
        }

        // And its full-size image asked for, the render waiting for that permit
        let render = Task { try await harness.pipeline.fullSizeSepia(of: 0) }
        let deadline = ContinuousClock.now + .seconds(60)
        while filtrations.waiting == 0 {
            guard ContinuousClock.now < deadline else {
                render.cancel()
                harness.close()
                throw CancellationError()
            }
            await Task.yield()
        }
        self.harness = harness
        self.filtrations = filtrations
        self.render = render
    }

    func close() { harness.close() }
}
