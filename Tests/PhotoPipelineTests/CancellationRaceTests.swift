import Foundation
@testable import PhotoPipeline
import TestOrigin
import Testing
import HTTPTransfer
import Locking

@Suite("Cancellation: no cancel is lost, however it races the start")
struct CancellationRaceTests {
    @Test func everyOperationCancelledAroundItsStartReportsItsEndOnceAndNoTransferRunsOn() async throws {
        // Given row 0 whose origin never sends the rest of its body, so only a cancel can end it
        let gate = OriginGate()
        let harness = try PipelineHarness(photos: SchedulingTests.photos(12, held: [0], by: gate))
        defer { harness.close() }
        let controller = harness.controller()
        let rounds = 200

        // When the viewer shows row 0 and jumps away at once, again and again, so that each cancel
        // lands somewhere between the operation's creation, its start and its transfer's registration
        for round in 1...rounds {
            controller.loadImagesForOnscreenRows(0...0)
            controller.loadImagesForOnscreenRows(10...10)
            try await harness.recorder.wait(for: "round \(round): row 0's download and filtration ended") { events in
                ended(.download, 0, in: events) == round && ended(.filtration, 0, in: events) == round
            }
        }

        // Then each round's download and filtration ended exactly once, as cancelled, and no transfer
        // is left running for nobody
        let events = await harness.recorder.events
        #expect(ended(.download, 0, in: events) == rounds)
        #expect(cancelled(.download, 0, in: events) == rounds)
        #expect(cancelled(.filtration, 0, in: events) == rounds)
        #expect(harness.loop.activeTransfers == 0)
        #expect(harness.pipeline.record(0).state == .new)
        #expect(!controller.pendingRows.contains(0))
    }

    private func ended(_ queue: QueueKind, _ index: Int, in events: [PipelineEvent]) -> Int {
        events.filter { event in
            guard case .operation(let operation) = event.kind else { return false }
            return operation.queue == queue && operation.index == index && operation.outcome != .started
        }.count
    }

    private func cancelled(_ queue: QueueKind, _ index: Int, in events: [PipelineEvent]) -> Int {
        events.filter { event in
            guard case .operation(let operation) = event.kind else { return false }
            return operation.queue == queue && operation.index == index && operation.outcome == .cancelled
        }.count
    }
}
