import Foundation
@testable import PhotoWeb
import Testing

/// Operations done for a viewer before its first stream (a page's first screen, worked on as the page is
/// served): its first stream sends them after its snapshot, so the page's timeline draws them.
@Suite("Event outbox: the first stream")
struct EventOutboxFirstStreamTests {
    func operation(_ index: Int, _ outcome: String) -> EventOutbox.Payload {
        .init(name: .operation, data: Data(#"{"index":\#(index),"outcome":"\#(outcome)","mine":true}"#.utf8))
    }

    @Test func operationsDoneBeforeTheFirstStreamFollowItsSnapshotAndOnlyItsOwn() async {
        // Given a viewer whose first screen was worked on before its page opened its stream
        let outbox = EventOutbox()
        outbox.keepForFirstStream(operation(0, "started"))
        outbox.keepForFirstStream(operation(0, "finished"))

        // When its first stream attaches
        let generation = outbox.attach(lastEventID: nil) { [.init(name: .snapshot, data: Data("{}".utf8))] }

        // Then the snapshot comes first, then those operations, in order
        guard case .events(let events) = await outbox.next(generation: generation) else {
            Issue.record("no events for the first stream")
            return
        }
        #expect(events.map(\.name) == [.snapshot, .operation, .operation])
        #expect(String(decoding: events[1].data, as: UTF8.self).contains("started"))
        #expect(String(decoding: events[2].data, as: UTF8.self).contains("finished"))
        #expect(events.allSatisfy { $0.made == .unknown })

        // And once it has had a stream, nothing more is kept for a later one
        outbox.keepForFirstStream(operation(1, "started"))
        let next = outbox.attach(lastEventID: nil) { [.init(name: .snapshot, data: Data("{}".utf8))] }
        guard case .events(let again) = await outbox.next(generation: next) else {
            Issue.record("no events for the next stream")
            return
        }
        #expect(again.map(\.name) == [.snapshot])
    }

    @Test func atMostTheLimitIsKeptTheOldestGoing() async {
        let outbox = EventOutbox()
        for index in 0..<(EventOutbox.earlyOperationLimit + 10) { outbox.keepForFirstStream(operation(index, "finished")) }
        let generation = outbox.attach(lastEventID: nil) { [] }
        guard case .events(let events) = await outbox.next(generation: generation) else {
            Issue.record("no events for the first stream")
            return
        }
        #expect(events.count == EventOutbox.earlyOperationLimit)
        #expect(String(decoding: events[0].data, as: UTF8.self).contains("\"index\":10,"))
    }
}
