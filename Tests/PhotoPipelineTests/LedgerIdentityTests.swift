import Foundation
@testable import PhotoPipeline
import TestOrigin
import Testing

/// Each queue's counts are one ledger: started = finished + cancelled while running + failed +
/// running now, at every reading, and operations cancelled before they started are counted apart.
@Suite("Ledger: each queue's counts add up")
struct LedgerIdentityTests {
    /// Whether `counts` add up; says which figure does not.
    static func addsUp(_ counts: PipelineStats.QueueCounts) -> Bool {
        counts.started == counts.finished + counts.cancelledRunning + counts.failed + counts.executing
            && counts.cancelled == counts.cancelledRunning + counts.cancelledQueued
    }

    @Test func aScrollWithCancellationsKeepsEveryQueuesLedgerAddingUp() async throws {
        // Given one transfer at a time, busy with row 0 (its origin holds the rest), rows 1-2 queued behind it
        let gate = OriginGate()
        let harness = try PipelineHarness(
            photos: SchedulingTests.photos(6, held: [0], by: gate),
            configuration: PipelineConfiguration(maxConcurrentDownloads: 1, maxConcurrentTransfers: 1, maxConcurrentFiltrations: 1))
        defer { gate.openAll(); harness.close() }
        let controller = harness.controller()
        controller.loadImagesForOnscreenRows(0...2)
        try await harness.recorder.wait(photo: 0, "downloading with progress") { state in
            if case .downloading(let progress?) = state { return progress > 0 }
            return false
        }
        // Then, running, the download is started and running, nothing else
        var downloads = harness.pipeline.stats.downloads
        #expect(downloads.started == 1 && downloads.executing == 1 && Self.addsUp(downloads), "\(downloads)")

        // When the viewer scrolls to rows 4-5: row 0's transfer is aborted, rows 1-2 never start
        controller.loadImagesForOnscreenRows(4...5)
        try await harness.recorder.wait(photo: 4, "filtered") { $0 == .filtered }
        try await harness.recorder.wait(photo: 5, "filtered") { $0 == .filtered }

        // Then each queue's ledger adds up, the cancellation of the running download in it and the
        // queued ones apart (they never started, so they are not among the started)
        let stats = harness.pipeline.stats
        downloads = stats.downloads
        #expect(Self.addsUp(downloads), "\(downloads)")
        #expect(Self.addsUp(stats.filtrations), "\(stats.filtrations)")
        #expect(downloads.cancelledRunning == 1, "\(downloads)")
        #expect(downloads.cancelledQueued >= 2, "\(downloads)")
        #expect(downloads.started >= 3 && downloads.finished >= 2, "\(downloads)")
        // And "most at once" is the server's one figure: one transfer at a time here, never more
        #expect(downloads.mostExecuting == 1 && stats.filtrations.mostExecuting == 1, "\(downloads)")

        // And the viewer's own work splits its cancellations as the queues' ledger does
        let own = harness.pipeline.queueStatus(for: controller.viewer).work
        #expect(own.cancelledRunning == 1 && own.cancelledQueued >= 2, "\(own)")
        #expect(own.cancelled == own.cancelledRunning + own.cancelledQueued, "\(own)")
    }
}
