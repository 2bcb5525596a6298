import Foundation
import PhotoCodecs
@testable import PhotoPipeline
import TestOrigin
import Testing

@Suite("Unfiltered preview first, and trying a failed photo again")
struct PreviewAndRetryTests {
    @Test func theUnfilteredPreviewComesBeforeTheSepiaThumbnailInTheSameShape() async throws {
        // Given a photo of one colour
        let bytes = TestPhotos.solidPNG(red: 200, green: 100, blue: 50, width: 300, height: 200)
        let harness = try PipelineHarness(photos: [("/colour.png", .body(contentType: "image/png", bytes: bytes))])
        defer { harness.close() }

        // When its row comes on screen
        harness.controller().loadImagesForOnscreenRows(0...0)
        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }

        // Then a preview was announced while it was filtering, before it was filtered
        let events = await harness.recorder.events
        let preview = events.firstIndex { if case .preview(0) = $0.kind { true } else { false } }
        let filtered = events.firstIndex { if case .photo(0, .filtered) = $0.kind { true } else { false } }
        #expect(preview != nil && filtered != nil && preview! < filtered!)

        // And the preview is the unfiltered colour, the thumbnail its sepia, both the same size
        let limits = DecodeLimits()
        let unfiltered = try ImageDecoder.decode(try harness.pipeline.image(.preview, of: 0).data, minimumHeight: nil, limits: limits)
        let sepia = try ImageDecoder.decode(try harness.pipeline.image(.thumbnail, of: 0).data, minimumHeight: nil, limits: limits)
        #expect(unfiltered.width == sepia.width && unfiltered.height == sepia.height)
        #expect(unfiltered.height == 160)
        let expectedSepia = PipelineEndToEndTests.expectedSepia(200, 100, 50)
        for channel in 0..<3 {
            #expect(abs(Int(unfiltered.bytes[channel]) - [200, 100, 50][channel]) <= 3)
            #expect(abs(Double(sepia.bytes[channel]) - expectedSepia[channel]) <= 3)
        }
    }

    @Test func aFailedPhotoIsTriedAgainOnlyWhenAsked() async throws {
        // Given a photo the origin does not have, which failed
        let harness = try PipelineHarness(photos: [("/late.jpg", .body(status: 404, contentType: "text/plain", bytes: Array("no".utf8)))])
        defer { harness.close() }
        let controller = harness.controller()
        controller.loadImagesForOnscreenRows(0...0)
        try await harness.recorder.wait(photo: 0, "failed") { if case .failed = $0 { true } else { false } }

        // When the viewer reports the row again, nothing is retried by itself
        controller.loadImagesForOnscreenRows(0...0)
        #expect(harness.origin.requestCount("/late.jpg") == 1)
        #expect(controller.pendingRows.isEmpty)

        // And once the file is there and someone asks to try again, the photo is worked on again
        harness.origin.setRoute("/late.jpg", .body(contentType: "image/jpeg", bytes: TestPhotos.jpeg()))
        let record = try harness.pipeline.retry(0)
        #expect(record.state == .new)
        controller.loadImagesForOnscreenRows(0...0)
        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }
        #expect(harness.origin.requestCount("/late.jpg") == 2)

        // And a photo that has not failed cannot be retried; an unknown one is named
        #expect(throws: PipelineError.notFailed(index: 0, state: .filtered)) { try harness.pipeline.retry(0) }
        #expect(throws: PipelineError.noSuchPhoto(index: 5, count: 1)) { try harness.pipeline.retry(5) }
    }
}
