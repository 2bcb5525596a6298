import Foundation
@testable import PhotoPipeline
import TestOrigin
import Testing

@Suite("Single flight: who runs a photo's work")
struct WorkClaimingTests {
    /// Another runner holds every photo's work.
    final class ClaimedElsewhere: WorkClaiming {
        func claim(_ key: String) -> Bool { false }
        func release(_ key: String) {}
    }

    @Test func localClaimsLetOneRunnerAtATime() {
        let claims = LocalWorkClaims()
        #expect(claims.claim("download a"))
        #expect(!claims.claim("download a"))
        #expect(claims.claim("filtration a"))
        claims.release("download a")
        #expect(claims.claim("download a"))
    }

    @Test func aPhotoAnotherRunnerHoldsIsNotWorkedOnHere() async throws {
        let harness = try PipelineHarness(photos: SchedulingTests.photos(1), claims: ClaimedElsewhere())
        defer { harness.close() }

        harness.controller().loadImagesForOnscreenRows(0...0)

        try await harness.recorder.wait(for: "row 0's download and filtration given up") { events in
            let ended = events.compactMap { event -> QueueKind? in
                if case .operation(let op) = event.kind, op.index == 0, op.outcome == .cancelled { return op.queue }
                return nil
            }
            return Set(ended) == [.download, .filtration]
        }
        #expect(harness.origin.requestCount("/p00.jpg") == 0)
        #expect(harness.pipeline.stats.downloads.started == 0)
        #expect(harness.pipeline.record(0).state == .new)
    }
}
