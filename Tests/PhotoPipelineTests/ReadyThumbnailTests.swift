import Foundation
@testable import PhotoPipeline
import TestOrigin
import Testing

/// A thumbnail asked for while its photo is on its way (issue 38): the ask waits for the filter and is
/// answered the moment the thumbnail is made, not failed and repeated after the `filtered` event.
@Suite("Thumbnails asked for before they are ready", .timeLimit(.minutes(1)))
struct ReadyThumbnailTests {
    /// Waits until `count` requests wait for their thumbnails (polled: the count is no event).
    private func waitForWaiting(_ count: Int, in pipeline: PhotoPipeline) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while pipeline.thumbnailWaits.waiting != count {
            try #require(ContinuousClock.now < deadline, "\(count) requests never waited")
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    private func heldPhoto() throws -> (PipelineHarness, OriginGate) {
        let gate = OriginGate()
        gate.open(.firstBytes)
        let bytes = TestPhotos.jpeg()
        let harness = try PipelineHarness(photos: [
            ("/p0.jpg", .gated(bytes: bytes, firstBytes: bytes.count / 2, gate: gate)),
            ("/p1.jpg", .body(contentType: "image/jpeg", bytes: bytes)),
        ])
        return (harness, gate)
    }

    @Test func aThumbnailAskedForWhileItsPhotoDownloadsIsAnsweredOnceItIsFiltered() async throws {
        // Given a photo on screen whose origin holds the second half of its bytes
        let (harness, gate) = try heldPhoto()
        defer { gate.openAll(); harness.close() }
        let controller = harness.controller()
        defer { controller.close() }
        controller.loadImagesForOnscreenRows(0...0)
        try await harness.recorder.wait(photo: 0, "half downloaded") { state in
            if case .downloading(let progress?) = state { return progress >= 0.45 } else { return false }
        }

        // When its thumbnail is asked for, and then the rest arrives
        let pipeline = harness.pipeline
        let asked = Task { try await pipeline.readyThumbnail(of: 0, waitingUpTo: .seconds(60)) }
        try await waitForWaiting(1, in: pipeline)
        #expect(throws: PipelineError.self) { try pipeline.image(.thumbnail, of: 0) }
        gate.open(.rest)

        // Then the ask is answered with the sepia thumbnail the filter made
        let answer = try await asked.value
        #expect(answer.data == (try pipeline.image(.thumbnail, of: 0)).data)
        #expect(pipeline.thumbnailWaits.waiting == 0)
    }

    @Test func aPhotoAtRestIsAnsweredAtOnce() async throws {
        // Given a photo nobody asked for (new), and one filtered
        let (harness, gate) = try heldPhoto()
        defer { gate.openAll(); harness.close() }
        let controller = harness.controller()
        defer { controller.close() }
        controller.loadImagesForOnscreenRows(1...1)
        try await harness.recorder.wait(photo: 1, "filtered") { $0 == .filtered }

        // When their thumbnails are asked for with a bound longer than the test's time limit
        // Then the new one is not there, at once, and the filtered one is
        await #expect(throws: PipelineError.self) { try await harness.pipeline.readyThumbnail(of: 0, waitingUpTo: .seconds(600)) }
        let filtered = try await harness.pipeline.readyThumbnail(of: 1, waitingUpTo: .seconds(600))
        #expect(filtered.data == (try harness.pipeline.image(.thumbnail, of: 1)).data)
        #expect(harness.pipeline.thumbnailWaits.waiting == 0)
    }

    @Test func aWaitEndsWhenThePhotosWorkIsCancelled() async throws {
        // Given a thumbnail asked for while its photo downloads, its origin holding the rest
        let (harness, gate) = try heldPhoto()
        defer { gate.openAll(); harness.close() }
        let controller = harness.controller()
        defer { controller.close() }
        controller.loadImagesForOnscreenRows(0...0)
        try await harness.recorder.wait(photo: 0, "downloading") { if case .downloading = $0 { true } else { false } }
        let pipeline = harness.pipeline
        let asked = Task { try await pipeline.readyThumbnail(of: 0, waitingUpTo: .seconds(600)) }
        try await waitForWaiting(1, in: pipeline)

        // When the viewer scrolls away and the download is cancelled
        controller.loadImagesForOnscreenRows(1...1)

        // Then the ask ends with no thumbnail, long before its bound
        await #expect(throws: PipelineError.self) { try await asked.value }
        #expect(pipeline.thumbnailWaits.waiting == 0)
    }
}
