import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Locking
@testable import PhotoServer
import PhotoWeb
@testable import SampleOrigin
import Testing

/// The sample photos are made as they are wanted: a list of any length is served at once, each
/// photo made when first asked for and the rest in the background, every one once.
@Suite("Sample origin: photos made as they are wanted", .timeLimit(.minutes(5)))
struct SampleMakingTests {
    @Test func aPhotoNotOnDiskIsMadeWhenFirstAskedForAndServedWhole() async throws {
        // Given an empty folder and an origin that makes nothing in the background
        let folder = try Self.emptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = Self.configuration(folder, photoCount: 30)
        let origin = try await RunningOrigin.start(configuration, makeInBackground: false)
        #expect(origin.origin.photosToMake > 0)

        // When three clients ask for the last photo at once
        let path = "/images/photo-029.jpg"
        let bodies = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<3 {
                group.addTask {
                    let response = try await TestClient.withClient(host: "127.0.0.1", port: Int(origin.port), configuration: .init(timeout: WebHarness.answerBound)) { try await $0.get(path) }
                    #expect(response.status == .ok)
                    return Array(try #require(response.body).readableBytesView)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        await origin.stop()

        // Then each gets the whole photo, the bytes its seed makes, and it is kept on disk
        let expected = Array(try SampleLibrary.render(number: 29, file: "photo-029.jpg"))
        #expect(bodies.count == 3 && bodies.allSatisfy { $0 == expected })
        let kept = try Data(contentsOf: folder.appendingPathComponent("sample-photos-\(SampleLibrary.version)/photo-029.jpg"))
        #expect(Array(kept) == expected)
    }

    @Test func theBackgroundMakesEveryPhotoOnceAndASecondStartHasNothingToMake() async throws {
        // Given an empty folder (and a few photos: the background runs at nice 19, so on a machine
        // kept busy, as the stress runs keep it, it gets a sliver of a core)
        let folder = try Self.emptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = Self.configuration(folder, photoCount: 4)
        let (progress, reported) = AsyncStream.makeStream(of: (made: Int, total: Int).self)

        // When the origin starts and its background pass runs to the end
        let origin = try await RunningOrigin.start(configuration) { made, total in
            reported.yield((made, total))
            if made == total { reported.finish() }
        }
        var counts: [(made: Int, total: Int)] = []
        for await count in progress { counts.append(count) }
        await origin.stop()

        // Then each photo was counted once, up to the total of files to make, and every one is on disk
        let total = try #require(counts.first?.total)
        #expect(total > 0 && total <= 4)
        #expect(counts.allSatisfy { $0.total == total })
        #expect(counts.map(\.made) == Array(1...total))
        let listed = (0..<4).map(SampleLibrary.entry).filter(\.exists)
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("sample-photos-\(SampleLibrary.version)").path)
        #expect(Set(listed.map(\.file)).isSubset(of: Set(onDisk)))

        // And a second start has nothing to make
        let second = try await RunningOrigin.start(configuration)
        #expect(second.origin.photosToMake == 0)
        await second.stop()
    }

    @Test func makingAllOfThemNowMakesEachMissingPhotoOnce() async throws {
        // Given an empty folder
        let folder = try Self.emptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = Self.configuration(folder, photoCount: 8)

        // When the samples command's call runs twice
        let first = try await SampleOrigin.makeAll(configuration)
        let second = try await SampleOrigin.makeAll(configuration)

        // Then the first made every listed photo and the second nothing
        #expect(first == (0..<8).map(SampleLibrary.entry).filter(\.exists).count)
        #expect(second == 0)
    }

    @Test func aCancelledWaitForAPhotoBeingMadeEndsAtOnceAndThePhotoIsStillMade() async throws {
        // Given a maker whose drawing of photo 0 is held until the test opens its gate
        let folder = try Self.emptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let gate = DispatchSemaphore(value: 0)
        let (drawing, drew) = AsyncStream.makeStream(of: Void.self)
        let maker = try SampleMaker(directory: folder, files: [0: "photo-000.jpg"], progress: nil) { number, _ in
            drew.yield()
            gate.wait()
            return Data("photo \(number)".utf8)
        }
        // And two requests waiting for it: the first one's drawing it, the second waits for the first
        let first = Task { try await maker.ensure(0) }
        var started = drawing.makeAsyncIterator()
        _ = await started.next()
        let second = Task { try await maker.ensure(0) }

        // When both are cancelled (a server shutting down) while the drawing is held
        second.cancel()
        first.cancel()

        // Then both stop waiting at once, with CancellationError (a wait that ignored it would hang here)
        await #expect(throws: CancellationError.self) { try await second.value }
        await #expect(throws: CancellationError.self) { try await first.value }

        // And the photo is still made: once the drawing ends, a later request finds it on disk
        gate.signal()
        try await maker.ensure(0)
        #expect(maker.missing == 0)
        #expect(try Data(contentsOf: folder.appendingPathComponent("photo-000.jpg")) == Data("photo 0".utf8))
    }

    @Test func aStartingMakerRemovesAKilledWritesLeftoverButNotAWriteInFlight() throws {
        // Given a folder holding two of Foundation's temporary files: one a killed run left an hour
        // ago, and one another server sharing the folder is writing now
        let folder = try Self.emptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let leftover = folder.appendingPathComponent(".dat.nosyncOLD1"), inFlight = folder.appendingPathComponent(".dat.nosyncNEW1")
        try Data("half a photo".utf8).write(to: leftover)
        try Data("a photo being written".utf8).write(to: inFlight)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3_600)], ofItemAtPath: leftover.path)

        // When a maker starts on the folder (as each server starting beside the others does)
        _ = try SampleMaker(directory: folder, files: [0: "photo-000.jpg"], progress: nil)

        // Then the leftover is gone and the write in flight is left to finish (removing it failed that
        // write, and the row that asked for the photo: issue 63)
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        #expect(FileManager.default.fileExists(atPath: inFlight.path))
    }

    private static func emptyFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sample-making-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    private static func configuration(_ folder: URL, photoCount: Int) -> SampleOriginConfiguration {
        var configuration = SampleOriginConfiguration(directory: folder.path)
        configuration.photoCount = photoCount
        configuration.latency = .zero
        configuration.bandwidth = 100_000_000
        return configuration
    }
}
