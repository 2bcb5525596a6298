import Foundation
@testable import PhotoPipeline
import TestOrigin
import Testing
import Locking

/// "Seen" has one meaning and one record: a row on the viewer's screen at a stop or while it reads,
/// never one it only passed in a flick; the viewer's waste and the server's are read from it.
@Suite("Seen: rows stopped at or read, not flicked past")
struct SeenTests {
    @Test func rowsPassedInAFlickStayWasteRowsReadOrStoppedAtDoNot() async throws {
        // Given rows 0-3 served at once and the rest held before their first byte (no bytes, no
        // waste), and a viewer of two-row screens with a prefetch margin of 2 stopped at rows 0-1
        let bytes = TestPhotos.jpeg()
        let closed = OriginGate()
        let photos = (0..<12).map { index in
            (String(format: "/p%02d.jpg", index), index < 4
                ? TestOrigin.Behaviour.body(contentType: "image/jpeg", bytes: bytes)
                : .gated(bytes: bytes, firstBytes: 0, gate: closed))
        }
        let harness = try PipelineHarness(photos: photos)
        defer { harness.close() }
        let controller = harness.controller(strategy: .prefetch(margin: 2))
        let start = ContinuousClock.now
        controller.loadImagesForOnscreenRows(0...1, at: start)
        for index in 0...3 {
            try await harness.recorder.wait(photo: index, "filtered") { $0 == .filtered }
        }
        // Rows 2-3 were read ahead: their work is waste so far, for the viewer as for the server
        let photo = Int64(bytes.count)
        #expect(harness.pipeline.stats.wastedBytes == 2 * photo && harness.pipeline.stats.wastedDownloads == 2)
        #expect(controller.queueStatus.waste.bytes == 2 * photo && controller.queueStatus.waste.downloads == 2)

        // When the viewer flicks past them (a screen in 100 ms)
        controller.scrollBegan()
        #expect(controller.scrolled(to: 2...3, at: start + .milliseconds(100)) == .flicking)

        // Then they are still waste, on both counts
        #expect(harness.pipeline.stats.wastedBytes == 2 * photo)
        #expect(controller.queueStatus.waste.bytes == 2 * photo)

        // When it then reads on (half a screen in a second), row 3 on screen
        #expect(controller.scrolled(to: 3...4, at: start + .milliseconds(1_100)) == .reading(direction: 1))

        // Then row 3 is seen, row 2 still not
        #expect(harness.pipeline.stats.wastedBytes == photo && harness.pipeline.stats.wastedDownloads == 1)
        #expect(controller.queueStatus.waste.bytes == photo && controller.queueStatus.waste.downloads == 1)

        // And once it stops on row 2, nothing done was waste (what was read ahead while it read is
        // cancelled before a byte came); the total stays what it cost
        controller.loadImagesForOnscreenRows(2...3, at: start + .milliseconds(1_400))
        let waste = controller.queueStatus.waste
        #expect(harness.pipeline.stats.wastedBytes == 0 && waste.bytes == 0 && waste.downloads + waste.filtrations == 0)
        #expect(controller.queueStatus.work.bytes == 4 * photo && controller.queueStatus.work.downloads == 4)
        #expect(harness.pipeline.stats.bytesDownloaded == 4 * photo)
    }

    @Test func aViewerThatLeftIsForgottenEvenByTheOperationsThatWorkedForIt() async throws {
        // Given two viewers of row 0, whose transfer is held at the origin after its first bytes
        let gate = OriginGate()
        let harness = try PipelineHarness(photos: SchedulingTests.photos(1, held: [0], by: gate))
        defer { harness.close() }
        let leaver = harness.controller(), stayer = harness.controller()
        leaver.loadImagesForOnscreenRows(0...0)
        stayer.loadImagesForOnscreenRows(0...0)
        try await harness.recorder.wait(photo: 0, "downloading") { if case .downloading = $0 { true } else { false } }

        // When one leaves for good, and only then does the transfer (still wanted by the other) end
        leaver.close()
        harness.pipeline.forgetWork(of: leaver.viewer)
        gate.openAll()
        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }

        // Then the work counts for the one that stayed, and nothing is kept of the one that left
        #expect(stayer.queueStatus.work.downloads == 1 && stayer.queueStatus.work.filtrations == 1)
        #expect(leaver.queueStatus.work == ViewerWork.Amount())
        #expect(harness.pipeline.core.lock.withLock { $0.ledger.work(of: leaver.viewer) } == ViewerWork())
    }
}
