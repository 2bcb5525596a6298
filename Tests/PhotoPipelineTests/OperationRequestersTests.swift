import Foundation
@testable import PhotoPipeline
import TestOrigin
import Testing
import Locking
import PhotoCodecs

@Suite("Operation events name the viewers they worked for")
struct OperationRequestersTests {
    /// The `operation` events of photo `index` so far.
    static func operations(of index: Int, in events: [PipelineEvent]) -> [OperationEvent] {
        events.compactMap { event in
            guard case .operation(let operation) = event.kind, operation.index == index else { return nil }
            return operation
        }
    }

    @Test func everyViewerThatWantedAPhotoIsNamedAndTheOneWhoScrolledAwayOwnsTheCancel() async throws {
        // Rows 0 and 1 are held at the origin after their first bytes.
        let gate = OriginGate()
        let harness = try PipelineHarness(photos: SchedulingTests.photos(6, held: [0, 1], by: gate))
        defer { harness.close() }
        let reader = harness.controller()
        let other = harness.controller()

        // Both want row 1; only the reader wants row 0.
        reader.loadImagesForOnscreenRows(0...1)
        other.loadImagesForOnscreenRows(1...1)
        try await harness.recorder.wait(photo: 0, "downloading with progress") { state in
            if case .downloading(let progress?) = state { return progress > 0 }
            return false
        }

        // The reader scrolls to row 4 (the other viewer keeps row 1): row 0's download is cancelled
        // for the reader, who no longer wants it by then but caused it.
        reader.loadImagesForOnscreenRows(4...4)
        try await harness.recorder.wait(photo: 4, "filtered") { $0 == .filtered }
        try await harness.recorder.wait(for: "row 0 cancelled") { events in
            Self.operations(of: 0, in: events).contains { $0.queue == .download && $0.outcome == .cancelled }
        }
        gate.openAll()
        try await harness.recorder.wait(photo: 1, "filtered") { $0 == .filtered }
        try await harness.recorder.wait(for: "row 1's filtration ended") { events in
            Self.operations(of: 1, in: events).contains { $0.queue == .filtration && $0.outcome == .finished }
        }

        let events = await harness.recorder.events
        let cancelled = try #require(Self.operations(of: 0, in: events).first { $0.queue == .download && $0.outcome == .cancelled })
        #expect(cancelled.viewers == [reader.viewer])
        #expect((cancelled.bytes ?? 0) > 0, "the aborted transfer's bytes")
        // Row 1 was wanted by both while it downloaded; it went on for the other viewer after the reader left.
        let row1 = Self.operations(of: 1, in: events).filter { $0.outcome == .finished }
        #expect(row1.count == 2 && row1.allSatisfy { $0.viewers == [reader.viewer, other.viewer] })
        #expect(row1.first { $0.queue == .filtration }?.cpuSeconds != nil)
        // Row 4: only the reader's.
        #expect(Self.operations(of: 4, in: events).allSatisfy { $0.viewers == [reader.viewer] })
        // Nothing is remembered once every operation has ended.
        #expect(harness.pipeline.core.lock.withLock { $0.requesters.count } == 0)
    }
}
