import Foundation
@testable import PhotoServer
import PhotoWeb
@testable import SampleOrigin
import Locking
import Testing

/// A first start makes the sample photos on several threads and says how far it is, for the page.
@Suite("Sample origin: progress of a first start")
struct SampleProgressTests {
    @Test func everyPhotoMadeIsCountedOnceAndTheLastCountIsTheTotal() async throws {
        // Given an empty folder
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sample-progress-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = SampleOriginConfiguration(SampleSettings(directory: folder.path))
        configuration.photoCount = 12
        let seen = Locked<[(made: Int, total: Int)]>([])

        // When the origin starts, making its photos
        let origin = try await RunningOrigin.start(configuration) { made, total in seen.withLock { $0.append((made, total)) } }
        await origin.stop()

        // Then each made photo was counted once, up to the total of files to make
        let counts = seen.withLock { $0 }
        let total = try #require(counts.first?.total)
        #expect(total > 0 && total <= 12)
        #expect(counts.allSatisfy { $0.total == total })
        #expect(counts.map(\.made).sorted() == Array(1...total))

        // And a second start, with nothing to make, says nothing
        let again = Locked(0)
        let second = try await RunningOrigin.start(configuration) { _, _ in again.withLock { $0 += 1 } }
        await second.stop()
        #expect(again.withLock { $0 } == 0)
    }
}
