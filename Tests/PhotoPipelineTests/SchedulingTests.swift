import Foundation
@testable import PhotoPipeline
import TestOrigin
import Testing

@Suite("Scheduling: suspend, cancel, priority, sharing")
struct SchedulingTests {
    /// A photo whose origin sends the head and its first bytes, then holds the rest until the test
    /// opens `gate` (or stops the origin): in flight for as long as the test needs, on any machine.
    static func held(by gate: OriginGate, seed: Int = 5) -> TestOrigin.Behaviour {
        gate.open(.firstBytes)
        return .gated(bytes: TestPhotos.jpeg(seed: seed, width: 1600, height: 1067), firstBytes: 16 * 1024, gate: gate)
    }

    static func photos(
        _ count: Int, held heldPaths: Set<Int> = [], by gate: OriginGate = OriginGate()
    ) -> [(path: String, behaviour: TestOrigin.Behaviour)] {
        let bytes = TestPhotos.jpeg()
        return (0..<count).map { index in
            (String(format: "/p%02d.jpg", index), heldPaths.contains(index) ? held(by: gate) : .body(contentType: "image/jpeg", bytes: bytes))
        }
    }

    @Test func nothingStartsWhileSuspendedAndEverythingResumes() async throws {
        let harness = try PipelineHarness(photos: Self.photos(6))
        defer { harness.close() }
        let scroller = harness.controller()
        let other = harness.controller()

        // Given a viewer that is scrolling, with operations queued for three rows
        scroller.suspendAllOperations()
        for index in 0...2 { scroller.startOperations(for: harness.pipeline.record(index)) }

        // When another viewer's row is fully processed (the queues had room all along)
        other.loadImagesForOnscreenRows(5...5)
        try await harness.recorder.wait(photo: 5, "filtered") { $0 == .filtered }

        // Then none of the scrolling viewer's work has started
        #expect(await harness.recorder.operations(.download, .started) == [5])
        let status = scroller.queueStatus
        #expect(status.download == .init(pending: 3, executing: 0, suspended: true))
        #expect(status.filtration.pending == 3)

        // And when it stops scrolling, all of it runs
        scroller.resumeAllOperations()
        for index in 0...2 {
            try await harness.recorder.wait(photo: index, "filtered") { $0 == .filtered }
        }
        #expect(scroller.pendingRows.isEmpty)
    }

    @Test func scrollingAwayCancelsOffscreenWorkAndAbortsTheTransfer() async throws {
        // Given one transfer at a time, busy with row 0 (its origin holds the rest of the body), and
        // rows 1-2 waiting behind it
        let harness = try PipelineHarness(
            photos: Self.photos(6, held: [0]),
            configuration: PipelineConfiguration(maxConcurrentDownloads: 1, maxConcurrentTransfers: 1, maxConcurrentFiltrations: 1))
        defer { harness.close() }
        let controller = harness.controller()
        controller.loadImagesForOnscreenRows(0...2)
        try await harness.recorder.wait(photo: 0, "downloading with progress") { state in
            if case .downloading(let progress?) = state { return progress > 0 }
            return false
        }

        // When the viewer scrolls to rows 4-5
        let scrolled = ContinuousClock.now
        controller.loadImagesForOnscreenRows(4...5)

        // Then the transfer in flight is aborted: the origin saw the connection close early
        try await harness.recorder.wait(for: "row 0's download cancelled") { events in
            events.contains { if case .operation(let op) = $0.kind { op.queue == .download && op.index == 0 && op.outcome == .cancelled } else { false } }
        }
        // (A figure to read, not a timed assertion: the benchmark measures the transfer's own cancel latency.)
        print("scroll-away to cancelled event: \(ContinuousClock.now - scrolled)")
        let served = try await harness.origin.waitUntilServed("/p00.jpg")
        #expect(served.clientClosedEarly)
        #expect(served.bytesSent < served.bodyLength)

        // And the record is back at rest, the rows that never started were cancelled, the new rows load
        try await harness.recorder.wait(photo: 4, "filtered") { $0 == .filtered }
        try await harness.recorder.wait(photo: 5, "filtered") { $0 == .filtered }
        #expect(harness.pipeline.record(0).state == .new)
        let started = await harness.recorder.operations(.download, .started)
        #expect(!started.contains(1) && !started.contains(2))
        #expect(Set(await harness.recorder.operations(.download, .cancelled)).isSuperset(of: [0, 1, 2]))
        #expect(harness.origin.requestCount("/p01.jpg") == 0)
        #expect(harness.pipeline.stats.transfersAborted == 1)
        #expect(controller.pendingRows.isEmpty)
    }

    @Test func visibleRowsRunFirstTopToBottomThenThePrefetchMargin() async throws {
        // Given one transfer at a time
        let harness = try PipelineHarness(
            photos: Self.photos(12),
            configuration: PipelineConfiguration(maxConcurrentDownloads: 1, maxConcurrentTransfers: 1, maxConcurrentFiltrations: 1))
        defer { harness.close() }

        // When rows 4-6 are on screen with a margin of two rows, then, two seconds later by the
        // reports' clock, the viewer reads on up a little
        let controller = harness.controller(strategy: .prefetch(margin: 2))
        let start = ContinuousClock.now
        controller.loadImagesForOnscreenRows(4...6, at: start)
        for index in 4...8 {
            try await harness.recorder.wait(photo: index, "filtered") { $0 == .filtered }
        }
        controller.loadImagesForOnscreenRows(2...4, at: start + .seconds(2))
        for index in 0...3 {
            try await harness.recorder.wait(photo: index, "filtered") { $0 == .filtered }
        }

        // Then downloads ran visible rows top to bottom, then the margin ahead, and nothing else
        #expect(await harness.recorder.operations(.download, .started) == [4, 5, 6, 7, 8, 2, 3, 1, 0])
    }

    @Test func aFiltrationNeverStartsBeforeItsDownloadEnds() async throws {
        let harness = try PipelineHarness(photos: Self.photos(8))
        defer { harness.close() }
        harness.controller().loadImagesForOnscreenRows(0...7)
        for index in 0...7 {
            try await harness.recorder.wait(photo: index, "filtered") { $0 == .filtered }
        }
        let events = await harness.recorder.events
        for index in 0...7 {
            let downloaded = events.firstIndex { if case .operation(let op) = $0.kind { op.queue == .download && op.index == index && op.outcome == .finished } else { false } }
            let filtering = events.firstIndex { if case .operation(let op) = $0.kind { op.queue == .filtration && op.index == index && op.outcome == .started } else { false } }
            #expect(downloaded != nil && filtering != nil && downloaded! < filtering!)
        }
    }

    @Test func twoViewersWantingOnePhotoGiveOneDownload() async throws {
        let gate = OriginGate()
        let harness = try PipelineHarness(photos: Self.photos(3, held: [0], by: gate))
        defer { harness.close() }
        let first = harness.controller()
        let second = harness.controller()

        // Given both viewers want row 0 while it downloads
        first.loadImagesForOnscreenRows(0...0)
        try await harness.origin.waitUntilRequested("/p00.jpg")
        second.loadImagesForOnscreenRows(0...0)

        // When the first viewer scrolls away, and then the origin sends the rest
        first.loadImagesForOnscreenRows(2...2)
        gate.openAll()

        // Then the photo still completes for the second viewer, from a single transfer
        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }
        try await harness.recorder.wait(photo: 2, "filtered") { $0 == .filtered }
        #expect(harness.origin.requestCount("/p00.jpg") == 1)
        #expect(await harness.recorder.operations(.download, .cancelled).isEmpty)
        #expect(harness.pipeline.stats.downloads.started == 2)  // row 0 once, row 2 once
    }

    @Test func oneViewerScrollingDoesNotStallAnother() async throws {
        let harness = try PipelineHarness(photos: Self.photos(3))
        defer { harness.close() }
        let scroller = harness.controller()
        let reader = harness.controller()
        scroller.suspendAllOperations()
        scroller.startOperations(for: harness.pipeline.record(0))
        scroller.startOperations(for: harness.pipeline.record(1))

        reader.loadImagesForOnscreenRows(1...1)

        try await harness.recorder.wait(photo: 1, "filtered") { $0 == .filtered }
        #expect(await harness.recorder.operations(.download, .started) == [1])
        #expect(scroller.pendingRows == [0])
    }

    @Test func theEagerStrategyLoadsEveryRowWithoutAViewport() async throws {
        let harness = try PipelineHarness(photos: Self.photos(5))
        defer { harness.close() }
        _ = harness.controller(strategy: .eager)
        for index in 0..<5 {
            try await harness.recorder.wait(photo: index, "filtered") { $0 == .filtered }
        }
        // Nobody looked at any of them: all of it counts as waste
        #expect(harness.pipeline.stats.wastedDownloads == 5)
    }

    @Test func aMemoryWarningCancelsWorkAndEvictsImages() async throws {
        let harness = try PipelineHarness(photos: Self.photos(4, held: [3]))
        defer { harness.close() }
        let controller = harness.controller()
        controller.loadImagesForOnscreenRows(0...3)
        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }
        try await harness.origin.waitUntilRequested("/p03.jpg")

        harness.pipeline.handleMemoryWarning()

        try await harness.recorder.wait(photo: 3, "back to new") { $0 == .new }
        try await harness.recorder.wait(photo: 0, "evicted") { $0 == .new }
        #expect(harness.pipeline.stats.cacheBytes == 0)
        #expect(throws: PipelineError.self) { try harness.pipeline.image(.thumbnail, of: 0) }
        #expect(controller.pendingRows.isEmpty)
    }

    @Test func rowsAheadFollowTheDirectionAndDepthGivenAndStopAtTheEnds() throws {
        let harness = try PipelineHarness(photos: Self.photos(30))
        defer { harness.close() }
        let controller = harness.controller(strategy: .prefetch(margin: 2))
        let visibleOnly = harness.controller(strategy: .visible)
        let rows = { (requests: [PhotoPipeline.RowRequest]) in requests.map(\.index) }

        #expect(rows(controller.rowsToLoad(10...12, readAhead: (1, 2))) == [10, 11, 12, 13, 14])   // down
        #expect(rows(controller.rowsToLoad(8...10, readAhead: (-1, 3))) == [8, 9, 10, 7, 6, 5])    // up, nearest first
        #expect(rows(controller.rowsToLoad(0...1, readAhead: (1, 0))) == [0, 1])                   // a flick: nothing
        #expect(rows(controller.rowsToLoad(27...28, readAhead: (1, 5))) == [27, 28, 29])           // the end
        #expect(rows(controller.rowsToLoad(1...2, readAhead: (-1, 5))) == [1, 2, 0])               // the top
        #expect(rows(visibleOnly.rowsToLoad(10...12, readAhead: (1, 5))) == [10, 11, 12])          // no prefetch strategy
        #expect(controller.rowsToLoad(10...12, readAhead: (1, 2)).map(\.priority) == [.visible, .visible, .visible, .prefetch, .prefetch])
    }
}
