import Foundation
import PhotoCodecs
@testable import PhotoPipeline
import TestOrigin
import Testing

@Suite("Resuming cancelled downloads over HTTP")
struct ResumeTests {
    static let etag = "\"v1\""

    /// A photo-sized JPEG.
    static func photo(seed: Int) -> [UInt8] {
        TestPhotos.jpeg(seed: seed, width: 1600, height: 1067)
    }

    /// `bytes` served as nginx serves a file with an ETag, everything past half held until `gate` opens.
    static func held(_ bytes: [UInt8], by gate: OriginGate, ranges: TestOrigin.RangeHandling = .honoured) -> TestOrigin.Behaviour {
        gate.open(.firstBytes)
        return .resource(bytes: bytes, etag: etag, ranges: ranges, gate: gate, holdAt: bytes.count / 2)
    }

    /// Row 0 (held at half by its origin) and an ordinary row 1.
    static func harness(
        _ bytes: [UInt8], held gate: OriginGate, ranges: TestOrigin.RangeHandling = .honoured,
        configuration: PipelineConfiguration = PipelineConfiguration(maxConcurrentDownloads: 4, maxConcurrentFiltrations: 2)
    ) throws -> PipelineHarness {
        try PipelineHarness(
            photos: [("/p00.jpg", held(bytes, by: gate, ranges: ranges)), ("/p01.jpg", .body(contentType: "image/jpeg", bytes: TestPhotos.jpeg()))],
            configuration: configuration)
    }

    /// Shows row 0 until its download holds about half of the photo, then scrolls to row 1, which
    /// cancels it; `thenWantAgain` shows rows 0-1 at once, while the cancel may still be under way.
    /// Returns once the download's cancellation has been reported.
    static func cancelNearHalf(_ harness: PipelineHarness, _ controller: PhotoListController, thenWantAgain: Bool = false) async throws {
        controller.loadImagesForOnscreenRows(0...0)
        try await harness.recorder.wait(photo: 0, "downloading past 45%") { state in
            if case .downloading(let progress?) = state { return progress >= 0.45 }
            return false
        }
        controller.loadImagesForOnscreenRows(1...1)
        if thenWantAgain { controller.loadImagesForOnscreenRows(0...1) }
        try await harness.recorder.wait(for: "row 0's download cancelled") { events in
            events.contains { if case .operation(let op) = $0.kind { op.queue == .download && op.index == 0 && op.outcome == .cancelled } else { false } }
        }
    }

    /// The request for `/p00.jpg` that carried a `Range`, once `times` requests have been served.
    static func rangeRequest(_ origin: TestOrigin, after times: Int) async throws -> (served: TestOrigin.Served, start: Int) {
        _ = try await origin.waitUntilServed("/p00.jpg", times: times)
        let served = try #require(origin.served.first { $0.path == "/p00.jpg" && $0.range != nil })
        let start = try #require(served.range.flatMap { Int($0.dropFirst("bytes=".count).dropLast()) })
        return (served, start)
    }

    @Test func aPhotoWantedAgainResumesWhereItsCancelledDownloadStopped() async throws {
        // Given row 0's download cancelled near half way, and the row wanted again at once
        let bytes = Self.photo(seed: 11)
        let gate = OriginGate()
        let harness = try Self.harness(bytes, held: gate)
        defer { harness.close() }
        let controller = harness.controller()
        try await Self.cancelNearHalf(harness, controller, thenWantAgain: true)

        // When the origin lets the rest go
        gate.openAll()
        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }

        // Then the second request asked for the rest of the same version, and only the rest was sent
        let (resumed, start) = try await Self.rangeRequest(harness.origin, after: 2)
        #expect(harness.origin.requestCount("/p00.jpg") == 2)
        #expect(start >= bytes.count * 45 / 100 && start <= bytes.count / 2)
        #expect(resumed.ifRange == Self.etag && resumed.status == 206)
        #expect(resumed.bytesSent == bytes.count - start)
        // And the photo is byte for byte what an uninterrupted download gives, each byte fetched once
        #expect(try harness.pipeline.image(.original, of: 0).data == Data(bytes))
        let stats = harness.pipeline.stats
        #expect(stats.resumedBytes == Int64(start))
        #expect(stats.bytesDownloaded == Int64(bytes.count + TestPhotos.jpeg().count))
        #expect(stats.resumableBytes == 0)
        #expect(stats.transfersAborted == 1)
        // And its thumbnail is the one the uninterrupted bytes give
        let expected = try SepiaRenderer(intensity: 0.8).thumbnail(of: Data(bytes), height: 160)
        #expect(try harness.pipeline.image(.thumbnail, of: 0).data == expected.data)
    }

    @Test func anOriginThatIgnoresRangeSendsThePhotoWholeAgain() async throws {
        let bytes = Self.photo(seed: 12)
        let gate = OriginGate()
        let harness = try Self.harness(bytes, held: gate, ranges: .ignored)
        defer { harness.close() }
        let controller = harness.controller()
        try await Self.cancelNearHalf(harness, controller)
        let kept = harness.pipeline.stats.resumableBytes
        #expect(kept >= bytes.count * 45 / 100)

        gate.openAll()
        // Row 1 (on screen now) is downloaded whole before row 0 comes back, which would cancel it.
        try await harness.recorder.wait(photo: 1, "filtered") { $0 == .filtered }
        controller.loadImagesForOnscreenRows(0...0)
        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }

        let (served, _) = try await Self.rangeRequest(harness.origin, after: 2)
        #expect(served.status == 200 && served.bytesSent == bytes.count)
        #expect(try harness.pipeline.image(.original, of: 0).data == Data(bytes))
        #expect(harness.pipeline.stats.resumedBytes == 0)
        #expect(harness.pipeline.stats.bytesDownloaded == Int64(kept + bytes.count + TestPhotos.jpeg().count))
    }

    @Test(arguments: [TestOrigin.RangeHandling.honoured, .ignoringIfRange])
    func aPhotoChangedSinceTheCancelComesWholeInItsNewVersion(ranges: TestOrigin.RangeHandling) async throws {
        // Given a cancelled download of version 1, and then the origin has version 2
        let gate = OriginGate()
        let harness = try Self.harness(Self.photo(seed: 13), held: gate)
        defer { harness.close() }
        let controller = harness.controller()
        try await Self.cancelNearHalf(harness, controller)
        let version2 = Self.photo(seed: 14)
        harness.origin.setRoute("/p00.jpg", .resource(bytes: version2, etag: "\"v2\"", ranges: ranges))

        // When the photo is wanted again
        controller.loadImagesForOnscreenRows(0...0)
        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }

        // Then it is version 2, whole: never version 1's start with version 2's end
        #expect(try harness.pipeline.image(.original, of: 0).data == Data(version2))
        let expected = try SepiaRenderer(intensity: 0.8).thumbnail(of: Data(version2), height: 160)
        #expect(try harness.pipeline.image(.thumbnail, of: 0).data == expected.data)
        #expect(harness.pipeline.stats.resumedBytes == 0)
    }

    @Test func withNoResumeBudgetNothingIsKeptAndNoRangeIsAsked() async throws {
        let bytes = Self.photo(seed: 15)
        let gate = OriginGate()
        var configuration = PipelineConfiguration(maxConcurrentDownloads: 4, maxConcurrentFiltrations: 2)
        configuration.resumeBudgetBytes = 0
        let harness = try Self.harness(bytes, held: gate, configuration: configuration)
        defer { harness.close() }
        let controller = harness.controller()
        try await Self.cancelNearHalf(harness, controller)
        #expect(harness.pipeline.stats.resumableBytes == 0)

        try await Self.wantAgainFromTheStart(harness, controller, gate)
        #expect(try harness.pipeline.image(.original, of: 0).data == Data(bytes))
    }

    @Test func aMemoryWarningDropsTheBytesKeptForResuming() async throws {
        let gate = OriginGate()
        let harness = try Self.harness(Self.photo(seed: 16), held: gate)
        defer { harness.close() }
        let controller = harness.controller()
        try await Self.cancelNearHalf(harness, controller)
        #expect(harness.pipeline.stats.resumableBytes > 0)

        harness.pipeline.handleMemoryWarning()

        #expect(harness.pipeline.stats.resumableBytes == 0)
        try await Self.wantAgainFromTheStart(harness, controller, gate)
    }

    /// Lets row 0's origin send everything, shows the row again, and checks that it was fetched
    /// again from its first byte (no request carried a `Range`).
    static func wantAgainFromTheStart(_ harness: PipelineHarness, _ controller: PhotoListController, _ gate: OriginGate) async throws {
        gate.openAll()
        controller.loadImagesForOnscreenRows(0...0)
        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }
        _ = try await harness.origin.waitUntilServed("/p00.jpg", times: 2)
        #expect(harness.origin.served.allSatisfy { $0.range == nil })
    }
}
