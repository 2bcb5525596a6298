import Foundation
@testable import PhotoPipeline
import Testing
import TestOrigin

/// Starting the list cold (issue 37): the caches emptied, memory and disk, work in flight cancelled,
/// and every row `new` again, worked on from the origin when next wanted.
@Suite("Start cold", .timeLimit(.minutes(2)))
struct ColdStartTests {
    @Test func aColdStartEmptiesMemoryAndDiskCancelsWorkAndARowIsDownloadedAgainWhenWanted() async throws {
        // Given a pipeline keeping its results on disk: photo 0 done, photo 1's download held half-way
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cold-start-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = await DiskCache.opening(directory, budget: 50_000_000)
        let held = OriginGate()
        held.open(.firstBytes)
        defer { held.openAll() }
        let photo = TestPhotos.jpeg()
        let harness = try PipelineHarness(
            photos: [("/p0.jpg", .body(contentType: "image/jpeg", bytes: photo)),
                     ("/p1.jpg", .gated(bytes: TestPhotos.jpeg(seed: 2), firstBytes: 1_000, gate: held))],
            results: cache)
        defer { harness.close() }
        let controller = harness.controller()
        controller.loadImagesForOnscreenRows(0...1)
        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }
        try await harness.recorder.wait(photo: 1, "downloading") { if case .downloading = $0 { true } else { false } }
        await cache.flushed()
        #expect(cache.usage.files > 0)

        // When the list starts cold, the origin now holding photo 0 too
        let again = OriginGate()
        defer { again.openAll() }
        harness.origin.setRoute("/p0.jpg", .gated(bytes: photo, firstBytes: 0, gate: again))
        let changed = await offThePool { harness.pipeline.startCold() }

        // Then memory and disk hold nothing, row 0 is new, and photo 1's transfer was aborted
        #expect((changed ?? 0) >= 1)
        #expect(harness.pipeline.record(0).state == .new)
        #expect(cache.usage.files == 0 && cache.usage.bytes == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        let aborted = try await harness.origin.waitUntilServed("/p1.jpg")
        #expect(aborted.clientClosedEarly)
        // A restart would find nothing either
        let reopenedCache = await DiskCache.opening(directory, budget: 50_000_000)
        let reopened = PhotoPipeline(entries: harness.pipeline.entries, disk: reopenedCache)
        #expect(reopened.record(0).state == .new)

        // When row 0 is wanted again, it is downloaded again from the origin and filtered again
        controller.loadImagesForOnscreenRows(0...0)
        #expect(harness.pipeline.record(0).state != .filtered)
        again.openAll()
        let fetched = try await harness.origin.waitUntilServed("/p0.jpg", times: 2)
        #expect(!fetched.clientClosedEarly && fetched.bytesSent == photo.count)
        try await harness.recorder.wait(for: "photo 0 filtered again") { events in
            events.count { if case .photo(0, .filtered) = $0.kind { true } else { false } } >= 2
        }
    }

    @Test func aDiskReadBegunBeforeAColdStartIsNotKept() async throws {
        // Given a pipeline whose photo 0's thumbnail is on disk only (a restart)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cold-read-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = await DiskCache.opening(directory, budget: 1_000_000)
        let entries = [PhotoEntry(name: "a", url: "http://127.0.0.1:1/a.jpg")]
        let configuration = PipelineConfiguration()
        let name = PhotoPipeline.diskKey(cacheKey: entries[0].cacheKey, variant: .thumbnail, configuration: configuration)
        cache.write(Data([0xFF, 0xD8]), for: name)
        await cache.flushed()
        let pipeline = PhotoPipeline(entries: entries, configuration: configuration, disk: cache)
        #expect(pipeline.record(0).state == .filtered)

        // When the list starts cold and a read of the results store made before it comes back
        let readAt = pipeline.coldStarts
        _ = await offThePool { pipeline.startCold() }
        let kept = Result { () throws(PipelineError) in try pipeline.keep(Data([0xFF, 0xD8]), as: .thumbnail, of: 0, readAt: readAt) }

        // Then it is a miss: the row stays new
        #expect(throws: PipelineError.self) { try kept.get() }
        #expect(pipeline.record(0).state == .new)
    }

    @Test func aFullSizeRenderInFlightAtAColdStartIsCancelledAndNeverCached() async throws {
        // Given a photo done, its full-size render held at the shared filter permit the test holds
        let held = try await HeldRender()
        defer { held.close() }
        let (harness, filtrations, render) = (held.harness, held.filtrations, held.render)

        // When the list starts cold, and then the render may go on
        _ = await offThePool { harness.pipeline.startCold() }
        filtrations.release(.host)

        // Then the render's caller is told the image is not available, nothing was kept, and the row stays new
        await #expect(throws: PipelineError.self) { try await render.value }
        #expect(filtrations.usage.held == 0 && filtrations.waiting == 0)
        await #expect(throws: PipelineError.self) { try await harness.pipeline.fullSizeSepia(of: 0) }
        #expect(throws: PipelineError.self) { try harness.pipeline.image(.sepia, of: 0) }
        #expect(harness.pipeline.record(0).state == .new)
    }
}
