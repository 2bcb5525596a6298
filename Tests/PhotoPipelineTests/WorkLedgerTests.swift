@testable import PhotoPipeline
import Testing

@Suite("Work ledger: what each photo cost, and what was wasted")
struct WorkLedgerTests {
    func totals(_ ledger: WorkLedger) -> PipelineStats {
        var stats = PipelineStats()
        ledger.fill(&stats)
        return stats
    }

    let viewer = ViewerID("reader")

    @Test func totalsAndWasteAreDerivedWhenRead() {
        // Given work on photo 0 (seen) and photo 1 (not yet)
        var ledger = WorkLedger()
        ledger.markSeen(0...0, by: viewer)
        ledger.add(bytes: 1_000, for: 0)
        ledger.countDownload(of: 0, resumedBytes: 0)
        ledger.add(bytes: 600, for: 1)
        ledger.add(bytes: 400, for: 1)
        ledger.countDownload(of: 1, resumedBytes: 0)
        ledger.add(filterSeconds: 0.25, for: 1)

        // Then the totals count both, the waste only photo 1
        let stats = totals(ledger)
        #expect(stats.bytesDownloaded == 2_000)
        #expect(stats.filterSeconds == 0.25)
        #expect(stats.wastedBytes == 1_000 && stats.wastedDownloads == 1 && stats.wastedFilterSeconds == 0.25)

        // And once photo 1 comes on screen its work is no longer waste: nothing was stored twice
        ledger.markSeen(1...1, by: viewer)
        let later = totals(ledger)
        #expect(later.wastedBytes == 0 && later.wastedDownloads == 0 && later.wastedFilterSeconds == 0)
        #expect(later.bytesDownloaded == 2_000)
    }

    @Test func abortedTransfersAndResumedBytesAddUp() {
        var ledger = WorkLedger()
        ledger.add(bytes: 300, for: 2)
        ledger.countAbort(of: 2)
        ledger.add(bytes: 700, for: 2)
        ledger.countDownload(of: 2, resumedBytes: 300)

        let stats = totals(ledger)
        #expect(stats.transfersAborted == 1)
        #expect(stats.resumedBytes == 300)
        #expect(stats.bytesDownloaded == 1_000)
        #expect(ledger.work[2] == .init(bytes: 1_000, downloads: 1, aborts: 1, filterSeconds: 0, resumedBytes: 300))
    }

    @Test func eachViewersWasteIsItsOwnUnseenWorkAndAViewerThatLeftIsForgotten() {
        // Given a download of photo 0 for the reader and a bystander, and one of photo 1 for the reader alone
        var ledger = WorkLedger()
        let bystander = ViewerID("bystander")
        ledger.account(OperationEvent(queue: .download, index: 0, outcome: .finished, track: 0, viewers: [viewer, bystander], bytes: 1_000))
        ledger.account(OperationEvent(queue: .download, index: 1, outcome: .cancelled, track: 1, viewers: [viewer], bytes: 300))
        ledger.account(OperationEvent(queue: .download, index: 2, outcome: .started, track: 2, viewers: [viewer]))

        // When only the bystander sees photo 0
        ledger.markSeen(0...0, by: bystander)

        // Then the work counts for both, the waste for the reader alone, and the server's waste is photo 1's
        #expect(ledger.work(of: viewer).total.bytes == 1_300 && ledger.work(of: viewer).total.cancelled == 1)
        #expect(ledger.work(of: viewer).waste.bytes == 1_300 && ledger.work(of: viewer).waste.downloads == 1)
        #expect(ledger.work(of: bystander).total.bytes == 1_000 && ledger.work(of: bystander).waste == ViewerWork.Amount())

        // And once the reader has seen both, none of it is waste; a viewer that left is forgotten
        ledger.markSeen(0...1, by: viewer)
        #expect(ledger.work(of: viewer).waste == ViewerWork.Amount() && ledger.work(of: viewer).total.bytes == 1_300)
        ledger.forget(bystander)
        #expect(ledger.work(of: bystander) == ViewerWork())
    }

    @Test func workDoneAheadThatIsSeenSinceLeavesTheWasteAndIsCountedApart() {
        // Given work on photos 1 and 2 before anyone saw them
        var ledger = WorkLedger()
        ledger.add(bytes: 1_000, for: 1)
        ledger.countDownload(of: 1, resumedBytes: 0)
        ledger.add(filterSeconds: 0.5, for: 1)
        ledger.add(bytes: 400, for: 2)
        ledger.account(OperationEvent(queue: .download, index: 1, outcome: .finished, track: 0, viewers: [viewer], bytes: 1_000))
        let before = totals(ledger)
        #expect(before.wastedBytes == 1_400 && before.seenSinceBytes == 0)

        // When photo 1 comes on screen (twice: the second sight changes nothing)
        ledger.markSeen(0...1, by: viewer)
        ledger.markSeen(1...1, by: viewer)

        // Then the waste went down by exactly what is now counted as seen since, server-wide and for the viewer
        let after = totals(ledger)
        #expect(after.wastedBytes == 400 && after.seenSinceBytes == 1_000 && after.seenSinceDownloads == 1)
        #expect(after.seenSinceFilterSeconds == 0.5 && after.wastedFilterSeconds == 0)
        #expect(after.wastedBytes + after.seenSinceBytes == before.wastedBytes + before.seenSinceBytes)
        #expect(ledger.work(of: viewer).seenSince.bytes == 1_000 && ledger.work(of: viewer).waste.bytes == 0)
    }
}
