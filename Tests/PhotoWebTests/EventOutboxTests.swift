import Foundation
@testable import PhotoWeb
import Testing

@Suite("Event outbox")
struct EventOutboxTests {
    func photo(_ index: Int, _ state: String) -> EventOutbox.Payload {
        .init(name: .photo, data: Data(#"{"index":\#(index),"state":"\#(state)"}"#.utf8), photoIndex: index)
    }

    @Test func unsentUpdatesOfOnePhotoCollapseToTheLatest() async {
        let outbox = EventOutbox()
        let generation = outbox.attach(lastEventID: nil) { [] }
        outbox.enqueue(photo(1, "downloading"))
        outbox.enqueue(photo(2, "downloading"))
        outbox.enqueue(photo(1, "downloaded"))

        #expect(outbox.pendingCount == 2)
        guard case .event(let first) = await outbox.next(generation: generation),
              case .event(let second) = await outbox.next(generation: generation) else {
            Issue.record("expected two events")
            return
        }
        #expect(String(decoding: first.data, as: UTF8.self).contains("\"index\":2"))
        #expect(String(decoding: second.data, as: UTF8.self).contains("downloaded"))
        #expect(first.id < second.id)
    }

    @Test func aReaderThatStopsReadingIsCutOffAndStartsAgainFromASnapshot() async {
        // Given a stream nobody reads
        let outbox = EventOutbox(limit: 50, historySize: 16)
        let generation = outbox.attach(lastEventID: nil) { [] }

        // When far more than the limit of distinct events arrive
        for index in 0..<10_000 {
            outbox.enqueue(.init(name: .operation, data: Data("{\"index\":\(index)}".utf8)))
        }

        // Then nothing piles up, the stream is closed, and the next one starts with a snapshot
        #expect(outbox.pendingCount == 0)
        #expect(await outbox.next(generation: generation) == nil)
        let next = outbox.attach(lastEventID: 3) { [.init(name: .snapshot, data: Data("{}".utf8))] }
        guard case .event(let event) = await outbox.next(generation: next) else {
            Issue.record("expected the snapshot")
            return
        }
        #expect(event.name == .snapshot)
    }

    @Test func aViewerWhoseStreamIsGoneLongEnoughIsDropped() {
        let registry = ViewerRegistry(maxViewers: 2, idleTimeout: .seconds(30))
        let kept = registry.create()!
        let gone = registry.create()!
        #expect(registry.create() == nil)  // at capacity
        _ = kept.outbox.attach(lastEventID: nil) { [] }

        let dropped = registry.dropIdle(now: .now + .seconds(31))

        #expect(dropped.map(\.id) == [gone.id])
        #expect(registry.session(kept.id) != nil && registry.session(gone.id) == nil)
    }
}

extension EventOutbox.Item: Equatable {
    public static func == (lhs: EventOutbox.Item, rhs: EventOutbox.Item) -> Bool {
        switch (lhs, rhs) {
        case (.heartbeat, .heartbeat): true
        case (.event(let a), .event(let b)): a.id == b.id
        default: false
        }
    }
}
