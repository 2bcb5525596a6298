import Foundation
import HTTPTransfer
@testable import PhotoPipeline
import Locking
import Testing
import TestOrigin
import PhotoCodecs

/// What a disk cache reported, in order.
final class CacheReports: Sendable {
    private let events = Locked<[DiskCacheEvent]>([])
    var all: [DiskCacheEvent] { events.withLock { $0 } }
    func add(_ event: DiskCacheEvent) { events.withLock { $0.append(event) } }
}

@Suite("Disk cache integrity: files that lie, writes that fail", .timeLimit(.minutes(2)))
struct CacheIntegrityTests {
    /// Four photos on an origin of their own, listed with a loopback allowance for it, and a cache folder.
    struct Fixture {
        let origin: TestOrigin
        let loop = TransferLoop(name: "cache-integrity")
        let entries: [PhotoEntry]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-integrity-\(UUID().uuidString)")
        var configuration = PipelineConfiguration(maxConcurrentDownloads: 4, maxConcurrentFiltrations: 2)

        init() throws {
            let paths = (0..<4).map { "/p\($0).jpg" }
            let origin = try TestOrigin(routes: Dictionary(uniqueKeysWithValues: paths.enumerated().map {
                ($1, .body(contentType: "image/jpeg", bytes: TestPhotos.jpeg(seed: $0 + 1)))
            }))
            self.origin = origin
            entries = paths.map { PhotoEntry(name: $0, url: origin.url($0)) }
            configuration.transferLimits.allowedSources = AllowedSources(entries: [try #require(.init(origin: origin.url("/")))])
        }

        func name(_ index: Int, _ variant: ImageVariant) -> String {
            PhotoPipeline.diskKey(cacheKey: entries[index].cacheKey, variant: variant, configuration: configuration)
        }

        func file(_ index: Int, _ variant: ImageVariant) -> URL {
            directory.appendingPathComponent(name(index, variant))
        }

        /// A pipeline on the folder's cache; `rows` are worked on until filtered.
        func run(_ cache: DiskCache, filtering rows: ClosedRange<Int>? = nil) async throws -> (PhotoPipeline, PhotoListController) {
            let pipeline = PhotoPipeline(entries: entries, configuration: configuration, loop: loop, disk: cache)
            let controller = PhotoListController(pipeline: pipeline, strategy: .visible)
            if let rows { try await filter(rows, pipeline, controller) }
            return (pipeline, controller)
        }

        func filter(_ rows: ClosedRange<Int>, _ pipeline: PhotoPipeline, _ controller: PhotoListController) async throws {
            let recorder = EventRecorder(pipeline)
            controller.loadImagesForOnscreenRows(rows)
            for index in rows where pipeline.record(index).state != .filtered {
                try await recorder.wait(photo: index, "filtered") { $0 == .filtered }
            }
        }

        func close() {
            origin.stop()
            loop.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func damagedFilesAcrossARestartAreDroppedAndTheirRowsWorkedOnAgain() async throws {
        let fixture = try Fixture()
        defer { fixture.close() }
        // Given a first run that filtered every row and kept it on disk
        let (first, _) = try await fixture.run(await DiskCache.opening(fixture.directory, budget: 10_000_000), filtering: 0...3)
        let thumbnails = try (0..<4).map { try first.image(.thumbnail, of: $0).data }
        await offThePool { first.shutdown() }

        // When three thumbnails are emptied, overwritten and cut, a fourth has one byte flipped
        // (its length and trailer still fit), and the server starts again
        try Data().write(to: fixture.file(0, .thumbnail))
        try Data((0..<5_000).map { _ in UInt8.random(in: 0...255) }).write(to: fixture.file(1, .thumbnail))
        let whole = try Data(contentsOf: fixture.file(2, .thumbnail))
        try whole.prefix(whole.count / 2).write(to: fixture.file(2, .thumbnail))
        var flipped = try Data(contentsOf: fixture.file(3, .thumbnail))
        flipped[flipped.count / 3] ^= 0xFF
        try flipped.write(to: fixture.file(3, .thumbnail))
        let reports = CacheReports()
        let (second, controller) = try await fixture.run(await DiskCache.opening(fixture.directory, budget: 10_000_000, report: reports.add))

        // Then the three are dropped at start (their rows are downloaded, the originals being whole),
        // and the fourth when first read: it is never served, and its row is downloaded from then on
        #expect(second.records(in: 0...(second.entries.count - 1)).map(\.state) == [.downloaded, .downloaded, .downloaded, .filtered])
        #expect(reports.all.count == 3 && reports.all.allSatisfy { if case .damaged = $0 { true } else { false } })
        #expect(throws: PipelineError.notAvailable(index: 3, variant: .thumbnail, state: .downloaded)) {
            try second.image(.thumbnail, of: 3)
        }
        #expect(second.record(3).state == .downloaded)
        #expect(reports.all.last == .damaged(name: fixture.name(3, .thumbnail), reason: "checksum mismatch"))
        #expect(!FileManager.default.fileExists(atPath: fixture.file(3, .thumbnail).path))

        // And viewing them makes them again, the same as before, without downloading anything
        try await fixture.filter(0...3, second, controller)
        #expect(try (0..<4).map { try second.image(.thumbnail, of: $0).data } == thumbnails)
        #expect(fixture.origin.served.count == 4)
        await offThePool { second.shutdown() }
    }

    @Test func aFailedWriteGivesItsNameUpIsReportedOncePerCauseAndWritesGoOnWhenTheyCan() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-writes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let reports = CacheReports()
        let cache = await DiskCache.opening(directory, budget: 1_000_000, report: reports.add)
        let lost = Locked<[String]>([])
        cache.whenLost { names in lost.withLock { $0 += names } }
        #expect(cache.writeProblem == nil)

        // When the folder is gone, two writes fail the same way
        try FileManager.default.removeItem(at: directory)
        cache.write(Data("a".utf8), for: "a")
        cache.write(Data("b".utf8), for: "b")
        await cache.flushed()

        // Then both names are given up, and the cause is reported once
        #expect(!cache.contains("a") && !cache.contains("b"))
        #expect(lost.withLock { $0 } == ["a", "b"])
        #expect(reports.all == [.writeFailed(cause: "create: No such file or directory")])
        #expect(cache.writeProblem == "create: No such file or directory")

        // And once the folder is back, a write works and says so
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        cache.write(Data("c".utf8), for: "c")
        await cache.flushed()
        #expect(cache.read("c") == Data("c".utf8))
        #expect(reports.all.last == .writesRecovered)
        #expect(cache.writeProblem == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["c"])
    }

    @Test func aRowIsNotFilteredWhenItsResultCanBeServedNeitherFromMemoryNorFromDisk() async throws {
        var fixture = try Fixture()
        defer { fixture.close() }
        // Given a memory cache too small to hold any image, and a disk whose writes fail
        fixture.configuration.memoryBudgetBytes = 1
        let cache = await DiskCache.opening(fixture.directory, budget: 10_000_000)
        try FileManager.default.removeItem(at: fixture.directory)
        let (pipeline, controller) = try await fixture.run(cache)
        let recorder = EventRecorder(pipeline)

        // When row 0 is filtered
        controller.loadImagesForOnscreenRows(0...0)
        try await recorder.wait(photo: 0, "filtered") { $0 == .filtered }

        // Then, its thumbnail kept nowhere, it does not stay filtered
        try await recorder.wait(photo: 0, "new again") { $0 == .new }
        #expect(pipeline.record(0).state == .new)
        #expect(throws: PipelineError.self) { try pipeline.image(.thumbnail, of: 0) }

        // And once writes work again, the row is made again and kept
        try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
        controller.loadImagesForOnscreenRows(1...1)
        controller.loadImagesForOnscreenRows(0...0)
        try await recorder.wait(for: "filtered twice") { events in
            events.filter { if case .photo(0, .filtered) = $0.kind { true } else { false } }.count == 2
        }
        await cache.flushed()
        #expect(cache.contains(fixture.name(0, .thumbnail)))
        #expect(pipeline.record(0).state == .filtered)
        #expect(try pipeline.image(.thumbnail, of: 0).format == .jpeg)
        await offThePool { pipeline.shutdown() }
    }
}
