import Foundation
@testable import PhotoPipeline
import TestOrigin
import Testing

@Suite("The serial strategy and the shared bounds")
struct SerialStrategyTests {
    @Test func serialKeepsEveryRowItHasSeenAndNeverCancelsNorSuspends() async throws {
        // Given one transfer at a time (visible rows' too, as a serial lab lane has it), row 0's transfer held at the origin, and rows 0-1 on screen
        let gate = OriginGate()
        let harness = try PipelineHarness(
            photos: SchedulingTests.photos(6, held: [0], by: gate),
            configuration: PipelineConfiguration(maxConcurrentDownloads: 1, maxConcurrentTransfers: 1, maxConcurrentFiltrations: 1))
        defer { harness.close() }
        let controller = harness.controller(strategy: .serial)
        controller.loadImagesForOnscreenRows(0...1)
        try await harness.recorder.wait(photo: 0, "downloading") { if case .downloading = $0 { true } else { false } }

        // When the viewer scrolls (nothing is suspended) and stops on rows 4-5
        controller.suspendAllOperations()
        controller.loadImagesForOnscreenRows(4...5)

        // Then nothing is cancelled: rows 0-1 are still wanted, behind them 4-5, in the order first seen
        #expect(controller.pendingRows == [0, 1, 4, 5])
        #expect(!controller.queueStatus.download.suspended)
        gate.openAll()
        for index in [0, 1, 4, 5] {
            try await harness.recorder.wait(photo: index, "filtered") { $0 == .filtered }
        }
        #expect(await harness.recorder.operations(.download, .started) == [0, 1, 4, 5])
        #expect(await harness.recorder.operations(.download, .cancelled).isEmpty)
        #expect(harness.pipeline.stats.transfersAborted == 0 && harness.pipeline.stats.wastedBytes == 0)
    }

    @Test func aGuestPipelineTakesOnlyItsShareOfTheSharedTransfers() async throws {
        // Given bounds of 2 transfers, 1 reserved for the host, and a guest pipeline whose transfers are held
        let gate = OriginGate()
        let bounds = SharedBounds(
            transfers: WorkPermits(capacity: 2, reservedForHost: 1), filtrations: WorkPermits(capacity: 2, reservedForHost: 1),
            holder: .guest)
        let harness = try PipelineHarness(
            photos: SchedulingTests.photos(4, held: [0, 1, 2, 3], by: gate),
            configuration: PipelineConfiguration(maxConcurrentDownloads: 4, maxConcurrentFiltrations: 1, sharedBounds: bounds))
        defer {
            gate.openAll()
            harness.close()
        }
        // When it wants 4 rows at once
        harness.controller().loadImagesForOnscreenRows(0...3)
        try await harness.recorder.wait(for: "a download started") { events in
            events.contains { if case .operation(let op) = $0.kind { op.queue == .download && op.outcome == .started } else { false } }
        }

        // Then one transfer runs (whichever the queue started first), the others wait for a permit
        // (started by the queue, but not running in the timeline); the host's reserve stays free
        #expect(bounds.transfers.usage == (held: 1, byGuests: 1))
        #expect(await harness.recorder.operations(.download, .started).count == 1)
        // And as each transfer ends, the next takes its permit, until all are done
        gate.openAll()
        for index in 0...3 {
            try await harness.recorder.wait(photo: index, "filtered") { $0 == .filtered }
        }
        #expect(bounds.transfers.usage == (held: 0, byGuests: 0))
        #expect(bounds.filtrations.usage == (held: 0, byGuests: 0))
    }
}
