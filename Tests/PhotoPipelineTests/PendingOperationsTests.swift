import PhotoCodecs
import HTTPTransfer
@testable import PhotoPipeline
import Testing

@Suite("PendingOperations: what is in progress, what runs in which lane")
struct PendingOperationsTests {
    func pending() -> PendingOperations {
        PendingOperations(maxConcurrentTransfers: 4, maxConcurrentFiltrations: 2)
    }

    @Test func eachRunningOperationHoldsTheLowestFreeLaneUntilItEnds() {
        var pending = pending()
        let first = TestRecords.operation(0, .download)
        let second = TestRecords.operation(1, .download)
        let third = TestRecords.operation(2, .download)
        let filtration = TestRecords.operation(0, .filtration)

        #expect(pending.start(first) == 0)
        #expect(pending.start(second) == 1)
        #expect(pending.start(filtration) == 0)  // lanes are per queue
        #expect(pending.end(first, .finished) == 0)
        #expect(pending.start(third) == 0)  // the freed lane is taken again
        #expect(pending.end(TestRecords.operation(5, .download), .cancelled) == nil)  // never started
    }

    @Test func aPhotosActivityIsWhatRunsForIt() {
        var pending = pending()
        let download = TestRecords.operation(0, .download)
        #expect(pending.activity(of: 0) == nil)

        _ = pending.start(download)
        #expect(pending.activity(of: 0) == .downloading(progress: nil))
        let before = pending.record(TransferProgress(received: 250, expected: 1000), of: download)
        #expect(before == nil)
        #expect(pending.activity(of: 0) == .downloading(progress: 0.25))
        #expect(pending.record(TransferProgress(received: 500, expected: 1000), of: download)?.received == 250)

        _ = pending.end(download, .finished)
        let filtration = TestRecords.operation(0, .filtration)
        _ = pending.start(filtration)
        #expect(pending.activity(of: 0) == .filtering)
        _ = pending.end(filtration, .finished)
        #expect(pending.activity(of: 0) == nil)
    }

    @Test func countsTellWaitingFromRunningAndAddUpEnds() {
        var pending = pending()
        let filtrations = (0...2).map { ImageFiltrationStub.make($0) }
        for filtration in filtrations { pending.filtrationsInProgress[filtration.index] = filtration }
        _ = pending.start(filtrations[0])

        var counts = pending.counts(of: .filtration)
        #expect(counts.pending == 2 && counts.executing == 1 && counts.started == 1)

        pending.remove(filtrations[0])
        _ = pending.end(filtrations[0], .failed)
        counts = pending.counts(of: .filtration)
        #expect(counts.executing == 0 && counts.failed == 1)
        #expect(pending.removeAll().count == 2)
    }

    @Test func anOperationNoLongerInProgressWindsDownUntilItEnds() {
        var pending = pending()
        let filtration = ImageFiltrationStub.make(4)
        pending.filtrationsInProgress[4] = filtration
        _ = pending.start(filtration)
        #expect(!pending.isWindingDown(4))

        // Cancelled: out of the table, still running
        pending.remove(filtration)
        #expect(pending.isWindingDown(4))

        _ = pending.end(filtration, .cancelled)
        #expect(!pending.isWindingDown(4))
    }
}

/// Filtrations for the in-progress table, never run.
enum ImageFiltrationStub {
    final class NoDelegate: PhotoOperationDelegate {
        func operationReported(_ report: OperationReport) {}
        func operationMayRun(_ operation: PhotoOperation) -> Bool { true }
    }

    static let delegate = NoDelegate()

    static func make(_ index: Int) -> ImageFiltration {
        ImageFiltration(
            photoRecord: TestRecords.record(index), input: .awaitingDownload, renderer: SepiaRenderer(),
            thumbnailHeight: 160, claims: LocalWorkClaims(), delegate: delegate)
    }
}
