import Foundation
@testable import PhotoWeb
import Testing

@Suite("Event outbox: bounded in bytes; viewport reports coalesced")
struct EventOutboxBytesTests {
    func operation(_ bytes: Int) -> EventOutbox.Payload {
        .init(name: .operation, data: Data(repeating: UInt8(ascii: "x"), count: bytes))
    }

    @Test func aReaderIsCutOffPastTheByteBoundWellBeforeTheEventBound() async {
        // Given a stream nobody reads, bounded at 10 KB and 2,000 events
        let unsent = UnsentEventBytes(budget: 1_000_000)
        let outbox = EventOutbox(limit: 2_000, byteLimit: 10_000, unsent: unsent)
        let generation = outbox.attach(lastEventID: nil) { [] }

        // When nine 1 KB events wait, they are counted, here and process-wide
        for _ in 0..<9 { outbox.enqueue(operation(1_000)) }
        #expect(outbox.pendingBytes == 9_000)
        #expect(unsent.bytes == 9_000)

        // Then two more (past 10 KB, far from 2,000 events) cut the stream and give the bytes back
        outbox.enqueue(operation(1_000))
        outbox.enqueue(operation(1_000))
        #expect(outbox.pendingCount == 0)
        #expect(unsent.bytes == 0)
        #expect(await outbox.next(generation: generation) == nil)
    }

    @Test func bytesReadOrLeftBehindAreGivenBackToTheBudget() async {
        let unsent = UnsentEventBytes(budget: 2_500)
        let outbox = EventOutbox(unsent: unsent)
        let generation = outbox.attach(lastEventID: nil) { [] }
        for _ in 0..<3 { outbox.enqueue(operation(1_000)) }
        #expect(!unsent.admitsNewStream)

        // A read takes what was queued and gives its bytes back; a stream that goes away, what it left
        guard case .events(let read) = await outbox.next(generation: generation) else {
            Issue.record("expected the events")
            return
        }
        #expect(read.count == 3 && unsent.bytes == 0 && unsent.admitsNewStream)
        for _ in 0..<2 { outbox.enqueue(operation(1_000)) }
        #expect(unsent.bytes == 2_000)
        outbox.detach(generation: generation)
        #expect(unsent.bytes == 0)

        // And with no stream attached, nothing is queued (the next one replays or starts from a snapshot)
        outbox.enqueue(operation(1_000))
        #expect(outbox.pendingCount == 0 && unsent.bytes == 0)
    }

    @Test func aReportSupersededBeforeItIsHandledIsDropped() {
        let reports = LatestReport<Int>()

        // Given a report being handled
        #expect(reports.offer(1))
        #expect(reports.take() == 1)

        // When two more arrive meanwhile, the first of them is dropped, the latest waits
        #expect(!reports.offer(2))
        #expect(!reports.offer(3))
        #expect(reports.droppedCount == 1)
        #expect(reports.take() == 3)

        // Then the handling ends once none waits, and the next report is handled by its own caller
        #expect(reports.take() == nil)
        #expect(reports.offer(4))
    }
}
