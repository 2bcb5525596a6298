import Foundation
@testable import PhotoPipeline
import TestOrigin
import Testing

@Suite("Reading ahead: nothing a reader moves towards is cancelled")
struct ReadingAheadTests {
    /// `count` photos whose origin holds every body after its first bytes: no download ends, so a row
    /// leaves the viewer's pending rows only by being cancelled.
    static func heldHarness(_ count: Int, gate: OriginGate) throws -> PipelineHarness {
        gate.open(.firstBytes)
        let bytes = TestPhotos.jpeg()
        return try PipelineHarness(
            photos: (0..<count).map { (String(format: "/p%03d.jpg", $0), .gated(bytes: bytes, firstBytes: 1_024, gate: gate)) },
            configuration: PipelineConfiguration(maxConcurrentDownloads: 4, maxConcurrentFiltrations: 2))
    }

    @Test func aSlowReaderKeepsEveryRowReadAheadInItsDirection() throws {
        // Given a reader of a 716 px screen (9 rows of 80 px) scrolling 100 px every 350 ms, reported as
        // the page does: the scroll's start, a report with its rows 100 ms in, its stop 150 ms after the move
        let gate = OriginGate()
        let harness = try Self.heldHarness(160, gate: gate)
        defer { harness.close() }
        let controller = harness.controller(strategy: .prefetch(margin: 3))
        let start = ContinuousClock.now
        controller.loadImagesForOnscreenRows(0...8, at: start)
        var cancelledAhead: [(step: Int, rows: [Int])] = []
        var cancelledBehind = 0
        for step in 1...40 {
            let at = start + .seconds(2) + .milliseconds(350 * step)
            let first = step * 100 / 80
            let visible = first...(first + 8)
            var before = controller.pendingRows
            controller.scrollBegan()
            controller.scrolled(to: visible, at: at + .milliseconds(100))
            var after = controller.pendingRows
            for report in 0..<2 {
                // When a report lands, the rows that left the viewer's pending set were cancelled
                let gone = before.subtracting(after)
                let ahead = gone.filter { $0 > visible.upperBound }.sorted()
                if !ahead.isEmpty { cancelledAhead.append((step, ahead)) }
                cancelledBehind += gone.count - ahead.count
                guard report == 0 else { break }
                before = after
                controller.loadImagesForOnscreenRows(visible, at: at + .milliseconds(250))
                after = controller.pendingRows
            }
            // Then every row on screen is wanted, and at least half a screen below it
            #expect(after.isSuperset(of: Set(visible.lowerBound...(visible.upperBound + 5))), "step \(step)")
        }
        #expect(cancelledAhead.isEmpty, "cancelled ahead of the reader: \(cancelledAhead)")
        // And what the reader moved away from is given up (rows above the screen)
        #expect(cancelledBehind > 0)
        #expect(controller.pendingRows.allSatisfy { $0 >= 50 })
    }

    @Test func aFlickOrATurnGivesUpWhatWasReadAheadTheOtherWay() {
        // Given a frontier 15 rows below a screen whose reader keeps going down
        var frontier = ReadAheadFrontier()
        _ = frontier.readAhead(of: 10...18, kind: .reading(direction: 1), proposed: (1, 15))
        #expect(frontier.readAhead(of: 11...19, kind: .reading(direction: 1), proposed: (1, 5)).depth == 14)
        #expect(frontier.readAhead(of: 12...20, kind: .resting, proposed: (1, 5)).depth == 13)
        // When it turns, the rows below are no longer read for
        #expect(frontier.readAhead(of: 11...19, kind: .reading(direction: -1), proposed: (-1, 5)) == (-1, 5))
        // And after a flick nothing is read ahead, nor kept from before it
        #expect(frontier.readAhead(of: 100...108, kind: .flicking, proposed: (-1, 0)).depth == 0)
        #expect(frontier.readAhead(of: 101...109, kind: .reading(direction: 1), proposed: (1, 5)).depth == 5)
    }
}
