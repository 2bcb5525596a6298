import Foundation
@testable import PhotoPipeline
import TestOrigin
import Testing

@Suite("Eager as a window over the list; the state census")
struct EagerWindowTests {
    /// One permit of each kind: the eager window is 2 * (1 + 1) = 4 rows.
    static let narrow = PipelineConfiguration(maxConcurrentDownloads: 1, maxConcurrentFiltrations: 1)

    /// `count` photos whose origin holds every transfer after its first bytes until `gate` opens.
    static func heldPhotos(_ count: Int, by gate: OriginGate) -> [(path: String, behaviour: TestOrigin.Behaviour)] {
        let held = SchedulingTests.held(by: gate)
        return (0..<count).map { (String(format: "/p%05d.jpg", $0), held) }
    }

    @Test func anEagerViewerAsksForAWindowOfRowsNotTheWholeList() async throws {
        let gate = OriginGate()
        let harness = try PipelineHarness(photos: Self.heldPhotos(5_000, by: gate), configuration: Self.narrow)
        defer { harness.close() }

        // When a viewer wants every row of a long list
        let eager = harness.controller(strategy: .eager)

        // Then it has asked for the first window of rows, in list order, and nothing else
        #expect(harness.pipeline.eagerWindow == 4)
        #expect(eager.pendingRows == Set(0..<4))
        let downloads = harness.pipeline.stats.downloads
        #expect(downloads.pending + downloads.executing == 4)

        // And a report, or a second eager viewer, asks for no more than the window
        eager.loadImagesForOnscreenRows(2_000...2_010)
        let second = harness.controller(strategy: .eager)
        #expect(eager.pendingRows == Set(0..<4))
        #expect(second.pendingRows == Set(0..<4))
        gate.openAll()
    }

    @Test func anEagerViewerMovesDownTheListInOrderAsRowsEnd() async throws {
        let harness = try PipelineHarness(jpegs: 12, configuration: Self.narrow)
        defer { harness.close() }

        // When an eager viewer's rows end, one after another
        let eager = harness.controller(strategy: .eager)
        for index in 0..<12 {
            try await harness.recorder.wait(photo: index, "filtered") { $0 == .filtered }
        }

        // Then every row was downloaded once, in list order, and nothing is left wanted
        #expect(await harness.recorder.operations(.download, .started) == Array(0..<12))
        #expect(eager.pendingRows.isEmpty)
    }

    @Test func anEagerViewerThatLeavesGivesUpOnlyItsWindow() async throws {
        let gate = OriginGate()
        let harness = try PipelineHarness(photos: Self.heldPhotos(200, by: gate), configuration: Self.narrow)
        defer { harness.close() }
        let eager = harness.controller(strategy: .eager)
        let reader = harness.controller()
        reader.loadImagesForOnscreenRows(2...3)

        // When the eager viewer leaves
        eager.close()

        // Then the rows another viewer has on screen go on, and the rest of the window is given up
        #expect(reader.pendingRows == [2, 3])
        #expect(harness.pipeline.pendingRows(of: eager.viewer).isEmpty)
        // (A download of its that was running is counted as running until its aborted transfer ends.)
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        var downloads = harness.pipeline.stats.downloads
        while downloads.pending + downloads.executing != 2, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            downloads = harness.pipeline.stats.downloads
        }
        #expect(downloads.pending + downloads.executing == 2, "\(downloads)")
        gate.openAll()
    }

    @Test func theCensusCountsEveryStateAsPhotosChange() async throws {
        // Given a list of six photos, one of which fails
        var photos = SchedulingTests.photos(6)
        photos[5] = ("/p05.jpg", .body(status: 404, contentType: "text/plain", bytes: Array("gone".utf8)))
        let harness = try PipelineHarness(photos: photos)
        defer { harness.close() }
        #expect(harness.pipeline.stateCounts["new"] == 6)
        #expect(harness.pipeline.stateCounts.keys.sorted() == StateCensus.names.sorted())

        // When every row is worked on
        harness.controller().loadImagesForOnscreenRows(0...5)
        for index in 0..<5 {
            try await harness.recorder.wait(photo: index, "filtered") { $0 == .filtered }
        }
        try await harness.recorder.wait(photo: 5, "failed") { if case .failed = $0 { true } else { false } }

        // Then the counts say so without anyone walking the list
        let counts = harness.pipeline.stateCounts
        #expect(counts["filtered"] == 5 && counts["failed"] == 1 && counts["new"] == 0)
        #expect(harness.pipeline.stats.states == counts)
    }
}
