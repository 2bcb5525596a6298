import Foundation
@testable import PhotoPipeline
import TestOrigin
import Testing

@Suite("Download permits: visible rows start at once, prefetch waits for a permit, one global bound")
struct DownloadPermitTests {
    /// `count` photos; those in `held` send their first bytes and hold the rest until `gate` opens.
    static func photos(_ count: Int, held: Set<Int>, by gate: OriginGate) -> [(path: String, behaviour: TestOrigin.Behaviour)] {
        SchedulingTests.photos(count, held: held, by: gate)
    }

    /// The most downloads running at once, from the operation events so far (optionally of `rows` only).
    static func mostRunning(_ events: [PipelineEvent], rows: Set<Int>? = nil) -> Int {
        var running = 0
        var most = 0
        for event in events {
            guard case .operation(let op) = event.kind, op.queue == .download, rows?.contains(op.index) ?? true else { continue }
            running += op.outcome == .started ? 1 : -1
            most = max(most, running)
        }
        return most
    }

    /// A pipeline with one prefetch permit and `transfers` transfers at once.
    static func harness(
        _ photos: [(path: String, behaviour: TestOrigin.Behaviour)], transfers: Int
    ) throws -> PipelineHarness {
        try PipelineHarness(
            photos: photos,
            configuration: PipelineConfiguration(maxConcurrentDownloads: 1, maxConcurrentTransfers: transfers, maxConcurrentFiltrations: 1))
    }

    /// Waits until every row of `rows` is `filtered`.
    static func waitFiltered(_ rows: ClosedRange<Int>, in harness: PipelineHarness) async throws {
        for index in rows {
            try await harness.recorder.wait(photo: index, "filtered") { $0 == .filtered }
        }
    }

    static func isDownloading(_ state: PhotoRecordState) -> Bool {
        if case .downloading(let progress?) = state { return progress > 0 }
        return false
    }

    @Test func everyVisibleRowStartsAtOnceWhateverThePrefetchBound() async throws {
        // Given one prefetch permit, and five rows on screen whose origin holds the rest of each body
        let gate = OriginGate()
        let harness = try Self.harness(Self.photos(8, held: Set(0...4), by: gate), transfers: 16)
        defer { harness.close() }

        // When the viewer stops on them
        harness.controller(strategy: .visible).loadImagesForOnscreenRows(0...4)

        // Then all five are in flight together
        for index in 0...4 {
            try await harness.recorder.wait(photo: index, "downloading") { Self.isDownloading($0) }
        }
        #expect(harness.pipeline.stats.downloads.executing == 5)
        gate.openAll()
        try await Self.waitFiltered(0...4, in: harness)
    }

    @Test func theGlobalBoundHoldsAcrossViewers() async throws {
        // Given at most three transfers, and two viewers with three held rows on screen each
        let gate = OriginGate()
        let harness = try Self.harness(Self.photos(6, held: Set(0...5), by: gate), transfers: 3)
        defer { harness.close() }
        harness.controller(strategy: .visible).loadImagesForOnscreenRows(0...2)
        harness.controller(strategy: .visible).loadImagesForOnscreenRows(3...5)

        // When the first three are in flight
        for index in 0...2 {
            try await harness.recorder.wait(photo: index, "downloading") { Self.isDownloading($0) }
        }

        // Then the others wait, and once the origin lets go everything finishes, never more than three at once
        #expect(harness.pipeline.stats.downloads.executing == 3)
        #expect(harness.pipeline.stats.downloads.pending == 3)
        gate.openAll()
        try await Self.waitFiltered(0...5, in: harness)
        #expect(Self.mostRunning(await harness.recorder.events) == 3)
    }

    @Test func prefetchWaitsForTheVisibleRowsThenTakesOnePermitAtATime() async throws {
        // Given one prefetch permit, two rows on screen held by the origin, and the rows below held too
        let visibleGate = OriginGate()
        let aheadGate = OriginGate()
        var photos = Self.photos(10, held: Set(0...1), by: visibleGate)
        for index in 2...6 {
            photos[index].behaviour = SchedulingTests.held(by: aheadGate, seed: index)
        }
        let harness = try Self.harness(photos, transfers: 16)
        defer { harness.close() }

        // When the viewer rests on rows 0-1 (it reads ahead below)
        let controller = harness.controller(strategy: .prefetch(margin: 3))
        controller.loadImagesForOnscreenRows(0...1)
        for index in 0...1 {
            try await harness.recorder.wait(photo: index, "downloading") { Self.isDownloading($0) }
        }

        // Then nothing below starts while the visible rows are in progress
        #expect(await harness.recorder.operations(.download, .started).sorted() == [0, 1])
        #expect(controller.queueStatus.download.pending == 3)

        // And once they are done, one prefetch download runs at a time, nearest first
        visibleGate.openAll()
        try await harness.recorder.wait(photo: 2, "downloading") { Self.isDownloading($0) }
        #expect(harness.pipeline.stats.downloads.executing == 1)
        #expect(harness.pipeline.stats.downloads.pending == 2)
        aheadGate.openAll()
        try await Self.waitFiltered(2...4, in: harness)
        let events = await harness.recorder.events
        #expect(Self.mostRunning(events, rows: Set(2...4)) == 1)
        #expect(Array(await harness.recorder.operations(.download, .started).dropFirst(2)) == [2, 3, 4])
    }
}
