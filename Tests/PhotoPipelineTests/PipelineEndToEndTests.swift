import Foundation
import PhotoCodecs
@testable import PhotoPipeline
import TestOrigin
import Testing
import HTTPTransfer

@Suite("From URL to sepia thumbnail")
struct PipelineEndToEndTests {
    /// The W3C Filter Effects sepia matrix at intensity 0.8, written out independently of the filter.
    static func expectedSepia(_ red: Double, _ green: Double, _ blue: Double, intensity amount: Double = 0.8) -> [Double] {
        let rest = 1 - amount
        let matrix: [[Double]] = [
            [0.393 + 0.607 * rest, 0.769 - 0.769 * rest, 0.189 - 0.189 * rest],
            [0.349 - 0.349 * rest, 0.686 + 0.314 * rest, 0.168 - 0.168 * rest],
            [0.272 - 0.272 * rest, 0.534 - 0.534 * rest, 0.131 + 0.869 * rest],
        ]
        return matrix.map { row in min(255, row[0] * red + row[1] * green + row[2] * blue) }
    }

    @Test func aPhotoIsDownloadedFilteredAndItsPixelsFollowTheMatrix() async throws {
        // Given an origin serving a lossless image of one colour
        let harness = try PipelineHarness(photos: [("/colour.png", .body(contentType: "image/png", bytes: TestPhotos.solidPNG(red: 200, green: 100, blue: 50)))])
        defer { harness.close() }
        let controller = harness.controller()

        // When its row comes on screen
        controller.loadImagesForOnscreenRows(0...0)
        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }

        // Then it went new -> downloading -> downloaded -> filtering -> filtered
        let states = await harness.recorder.events.compactMap { event -> String? in
            if case .photo(0, let state) = event.kind { return state.name }
            return nil
        }
        #expect(states.first == "downloading")
        #expect(states.filter { $0 != "downloading" } == ["downloaded", "filtering", "filtered"])

        // And the thumbnail's pixels are the documented sepia of the source colour
        let thumbnail = try harness.pipeline.image(.thumbnail, of: 0)
        let pixels = try ImageDecoder.decode(thumbnail.data, minimumHeight: nil, limits: DecodeLimits())
        let expected = Self.expectedSepia(200, 100, 50)
        for offset in stride(from: 0, to: pixels.bytes.count, by: pixels.channels * 97) {
            for channel in 0..<3 {
                #expect(abs(Double(pixels.bytes[offset + channel]) - expected[channel]) <= 3)
            }
        }
        // And the original is kept too, byte for byte
        #expect(try harness.pipeline.image(.original, of: 0).data == Data(TestPhotos.solidPNG(red: 200, green: 100, blue: 50)))
        #expect(harness.pipeline.stats.downloads.finished == 1)
        #expect(harness.pipeline.stats.filtrations.finished == 1)
    }

    @Test func aLargeJPEGGivesAThumbnailOfTheConfiguredHeight() async throws {
        let harness = try PipelineHarness(photos: [("/big.jpg", .body(contentType: "image/jpeg", bytes: TestPhotos.jpeg(seed: 9, width: 1600, height: 1067)))])
        defer { harness.close() }
        harness.controller().loadImagesForOnscreenRows(0...0)
        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }

        let thumbnail = try harness.pipeline.image(.thumbnail, of: 0)
        let pixels = try ImageDecoder.decode(thumbnail.data, minimumHeight: nil, limits: DecodeLimits())
        #expect(pixels.height == 160)
        #expect(abs(pixels.width - 240) <= 1)

        let full = try await harness.pipeline.fullSizeSepia(of: 0)
        let fullPixels = try ImageDecoder.decode(full.data, minimumHeight: nil, limits: DecodeLimits())
        #expect(fullPixels.width == 1600 && fullPixels.height == 1067)
    }

    @Test func theFullSizeRenderTakesAPermitOfTheSharedFilterBound() async throws {
        // Given a photo done, and its full-size render waiting for the shared filter permit another pipeline holds
        let held = try await HeldRender()
        defer { held.close() }
        let (filtrations, render) = (held.filtrations, held.render)
        #expect(filtrations.usage.held == 1)

        // Then once the permit is free it renders, and gives the permit back
        filtrations.release(.host)
        let full = try await render.value
        let pixels = try ImageDecoder.decode(full.data, minimumHeight: nil, limits: DecodeLimits())
        #expect(pixels.width == 640 && pixels.height == 480)
        #expect(filtrations.usage.held == 0 && filtrations.waiting == 0)
    }

    static let failures: [(String, TestOrigin.Behaviour, String)] = [
        ("/missing.jpg", .body(status: 404, contentType: "text/html", bytes: TestPhotos.html), "HTTP 404"),
        ("/broken.jpg", .body(status: 500, contentType: "text/html", bytes: TestPhotos.html), "HTTP 500"),
        ("/loop.jpg", .redirect(location: "/loop.jpg"), "redirected too many times"),
        ("/truncated.jpg", .body(contentType: "image/jpeg", bytes: TestPhotos.truncatedJPEG()), "cut short (truncated JPEG)"),
        ("/corrupt.png", .body(contentType: "image/png", bytes: TestPhotos.corruptPNG()), "corrupt PNG"),
        ("/page.jpg", .body(contentType: "text/html", bytes: TestPhotos.html), "This is a web page, not an image"),
        ("/absurd.jpg", .body(contentType: "image/jpeg", bytes: TestPhotos.absurdJPEG()), "megapixels"),
    ]

    @Test(arguments: 0..<failures.count)
    func aBadPhotoFailsWithItsReasonAndOthersStillLoad(case number: Int) async throws {
        // Given one bad photo beside a good one
        let (path, behaviour, reason) = Self.failures[number]
        let harness = try PipelineHarness(photos: [
            (path, behaviour),
            ("/zz-good.jpg", .body(contentType: "image/jpeg", bytes: TestPhotos.jpeg())),
        ])
        defer { harness.close() }

        // When both rows are on screen
        harness.controller().loadImagesForOnscreenRows(0...1)

        // Then the bad one fails saying why, and the good one is filtered all the same
        try await harness.recorder.wait(photo: 0, "failed") { state in
            if case .failed(let text, _) = state { return text.contains(reason) }
            return false
        }
        try await harness.recorder.wait(photo: 1, "filtered") { $0 == .filtered }
        #expect(throws: PipelineError.self) { try harness.pipeline.image(.thumbnail, of: 0) }
    }

    @Test func aStalledOriginTimesOut() async throws {
        var configuration = PipelineConfiguration(maxConcurrentDownloads: 2, maxConcurrentFiltrations: 1)
        configuration.transferLimits.lowSpeedTime = .seconds(1)
        let harness = try PipelineHarness(
            photos: [("/stall.jpg", .stall(declaredLength: 100_000, sendFirst: 0))], configuration: configuration, speedChecks: true)
        defer { harness.close() }
        harness.controller().loadImagesForOnscreenRows(0...0)
        try await harness.recorder.wait(photo: 0, "failed as stalled") { state in
            if case .failed(let text, _) = state { return text.contains("stalled") }
            return false
        }
    }
}
