import Foundation
@testable import PhotoPipeline
import TestOrigin
import Testing

/// A record is a value: what the pipeline held when it was read, however the photo goes on.
@Suite("Records as values")
struct PhotoRecordTests {
    @Test func recordsReadTogetherKeepTheStatesOfThatMomentAndAReadAgainHasTheNewOnes() async throws {
        // Given rows 0-1, row 1 held at the origin after its first bytes, read while row 0 is filtered
        let gate = OriginGate()
        let harness = try PipelineHarness(photos: SchedulingTests.photos(2, held: [1], by: gate))
        defer { harness.close() }
        harness.controller().loadImagesForOnscreenRows(0...1)
        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }
        try await harness.recorder.wait(photo: 1, "downloading") { if case .downloading = $0 { true } else { false } }
        let before = harness.pipeline.records(in: 0...5)
        #expect(before.map(\.index) == [0, 1] && before.map(\.name) == ["/p00.jpg", "/p01.jpg"])
        #expect(before[0].state == .filtered)

        // When row 1 is done
        gate.openAll()
        try await harness.recorder.wait(photo: 1, "filtered") { $0 == .filtered }

        // Then the records read before still say what was then; a new read says what is now
        if case .downloading = before[1].state {} else { Issue.record("row 1 read as \(before[1].state), not downloading") }
        #expect(harness.pipeline.record(1).state == .filtered)
        #expect(harness.pipeline.records(in: 0...1) == [harness.pipeline.record(0), harness.pipeline.record(1)])
    }
}
