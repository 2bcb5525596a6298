import Foundation
@testable import PhotoPipeline
import Testing

@Suite("Disk cache")
struct DiskCacheTests {
    func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("disk-cache-\(UUID().uuidString)")
    }

    @Test func filesSurviveAReopenAndHalfWrittenOnesAreForgotten() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Given a cache holding one file, and a write a crash interrupted (left under a temporary name)
        let cache = await DiskCache.opening(directory, budget: 1_000_000)
        cache.write(Data("whole".utf8), for: "a")
        await cache.flushed()
        try Data("half".utf8).write(to: directory.appendingPathComponent(".b.interrupted"))

        // When it is opened again
        let reopened = await DiskCache.opening(directory, budget: 1_000_000)

        // Then the whole file is there and the half one is gone
        #expect(reopened.read("a") == Data("whole".utf8))
        #expect(reopened.usage.files == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["a"])
    }

    @Test func theLeastRecentlyUsedFileGoesFirstPastTheBudget() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = await DiskCache.opening(directory, budget: 250)
        cache.write(Data(count: 100), for: "old")
        cache.write(Data(count: 100), for: "used")
        _ = cache.read("used")
        cache.write(Data(count: 100), for: "new")
        await cache.flushed()

        #expect(!cache.contains("old"))
        #expect(cache.contains("used") && cache.contains("new"))
        #expect(cache.usage.bytes == 2 * (100 + CacheFileFormat.trailerLength))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory.path)) == ["used", "new"])
    }

    @Test func aPipelineStartsRowsAlreadyOnDiskAsDone() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = await DiskCache.opening(directory, budget: 1_000_000)
        let entries = [PhotoEntry(name: "a", url: "http://127.0.0.1:1/a.jpg"), PhotoEntry(name: "b", url: "http://127.0.0.1:1/b.jpg")]
        let configuration = PipelineConfiguration()
        cache.write(Data([0xFF, 0xD8]), for: PhotoPipeline.diskKey(cacheKey: entries[0].cacheKey, variant: .thumbnail, configuration: configuration))
        await cache.flushed()

        let pipeline = PhotoPipeline(entries: entries, configuration: configuration, disk: cache)

        #expect(pipeline.records(in: 0...(pipeline.entries.count - 1)).map(\.state) == [.filtered, .new])
        #expect(try pipeline.image(.thumbnail, of: 0).data == Data([0xFF, 0xD8]))
    }
}
