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
        guard case .events(let events) = await outbox.next(generation: generation), events.count == 2 else {
            Issue.record("expected two events")
            return
        }
        #expect(String(decoding: events[0].data, as: UTF8.self).contains("\"index\":2"))
        #expect(String(decoding: events[1].data, as: UTF8.self).contains("downloaded"))
        #expect(events[0].id < events[1].id)
    }

    @Test func aBatchIsQueuedAsItsEventsWouldBeOneByOne() async {
        // Given a stream, when a batch comes in one step
        let outbox = EventOutbox()
        let generation = outbox.attach(lastEventID: nil) { [] }
        outbox.enqueue(contentsOf: [photo(1, "downloading"), photo(2, "downloading"), photo(1, "filtered")])

        // Then it is folded and ordered as one by one: row 2, then row 1's latest, and the writer
        // takes both in one item (one write)
        #expect(outbox.pendingCount == 2)
        guard case .events(let events) = await outbox.next(generation: generation), events.count == 2 else {
            Issue.record("expected two events in one item")
            return
        }
        #expect(String(decoding: events[0].data, as: UTF8.self).contains("\"index\":2"))
        #expect(String(decoding: events[1].data, as: UTF8.self).contains("filtered"))
        #expect(events[0].id < events[1].id && outbox.pendingCount == 0)
    }

    @Test func aWriterWaitingForEventsStopsWhenItsTaskIsCancelled() async {
        // Given a stream's writer waiting on an outbox nobody closes (a stopping server cancels its
        // connections; a stream attached after the viewers were told must not hold the stop)
        let outbox = EventOutbox()
        let generation = outbox.attach(lastEventID: nil) { [] }
        let writer = Task { await outbox.next(generation: generation) }
        // When its task is cancelled (before or while it waits: both end the same)
        writer.cancel()
        // Then the wait ends with the stream's end (a wait that ignored it would hang here)
        #expect(await writer.value == nil)
        // And the outbox still serves the viewer's next stream
        let next = outbox.attach(lastEventID: nil) { [] }
        outbox.enqueue(photo(1, "filtered"))
        guard case .events(let events) = await outbox.next(generation: next) else {
            Issue.record("no events for the next stream")
            return
        }
        #expect(events.count == 1)
    }

    @Test func aBatchPastTheLimitCutsTheStreamOffAsOneByOneWould() async {
        let outbox = EventOutbox(limit: 10, historySize: 4)
        let generation = outbox.attach(lastEventID: nil) { [] }
        outbox.enqueue(contentsOf: (0..<50).map { EventOutbox.Payload(name: .operation, data: Data("{\"index\":\($0)}".utf8)) })
        #expect(outbox.pendingCount == 0)
        #expect(await outbox.next(generation: generation) == nil)
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
        guard case .events(let events) = await outbox.next(generation: next) else {
            Issue.record("expected the snapshot")
            return
        }
        #expect(events.map(\.name) == [.snapshot])
    }

    @Test func aReconnectGetsEverythingAfterItsLastIDWithSupersededUpdatesCollapsed() async {
        // Given a stream that read up to event 2, then left while more happened
        let outbox = EventOutbox()
        let first = outbox.attach(lastEventID: nil) { [] }
        outbox.enqueue(photo(1, "downloading"))  // 1
        outbox.enqueue(photo(2, "downloading"))  // 2
        _ = await outbox.next(generation: first)
        outbox.detach(generation: first)
        outbox.enqueue(photo(1, "downloaded"))  // 3
        outbox.enqueue(.init(name: .operation, data: Data("{}".utf8)))  // 4
        outbox.enqueue(photo(1, "filtered"))  // 5: supersedes 3

        // When it reconnects with Last-Event-ID 2
        let next = outbox.attach(lastEventID: 2) { [.init(name: .snapshot, data: Data("{}".utf8))] }

        // Then it gets 4 and 5 in order: every event after 2, photo 1 only in its latest state
        guard case .events(let events) = await outbox.next(generation: next) else {
            Issue.record("expected the replay")
            return
        }
        #expect(events.map(\.id) == [4, 5])
    }

    @Test func theSnapshotIsMadeWithoutTheOutboxLockAndWhatArrivesMeanwhileFollowsIt() async {
        // Given a snapshot whose making reaches other locks and sees an event arrive
        // (the registry's dropIdle takes every outbox's lock; enqueue takes this one's)
        let registry = TestViewers(maxViewers: 4, idleTimeout: .seconds(30))
        let session = registry.create()!
        let outbox = session.outbox

        // When a stream attaches
        let generation = outbox.attach(lastEventID: nil) {
            registry.dropIdle()
            outbox.enqueue(photo(7, "filtered"))
            return [.init(name: .snapshot, data: Data("{}".utf8))]
        }

        // Then it gets the snapshot first, then the event, with increasing ids
        guard case .events(let events) = await outbox.next(generation: generation), events.count == 2 else {
            Issue.record("expected the snapshot and the event")
            return
        }
        #expect(events[0].name == .snapshot && events[1].name == .photo)
        #expect(events[0].id < events[1].id)
        #expect(registry.session(session.id) != nil)
    }

    @Test func aViewerWhoseStreamIsGoneLongEnoughIsDropped() {
        let registry = TestViewers(maxViewers: 2, idleTimeout: .seconds(30))
        let kept = registry.create()!
        let gone = registry.create()!
        #expect(registry.create() == nil)  // at capacity
        _ = kept.outbox.attach(lastEventID: nil) { [] }

        let dropped = registry.dropIdle(now: .now + .seconds(31))

        #expect(dropped.map(\.id) == [gone.id])
        #expect(registry.session(kept.id) != nil && registry.session(gone.id) == nil)
    }

    @Test func aViewerWhoseStreamClosedMakesRoomAtOnceForANewOne() {
        // Given a full server: one viewer still connecting, one reading, two whose streams closed
        let registry = TestViewers(maxViewers: 4, idleTimeout: .seconds(30))
        let connecting = registry.create()!
        let reading = registry.create()!
        _ = reading.outbox.attach(lastEventID: nil) { [] }
        let (first, second) = (registry.create()!, registry.create()!)
        for gone in [first, second] {
            let generation = gone.outbox.attach(lastEventID: nil) { [] }
            gone.outbox.detach(generation: generation)
        }

        // When new viewers come, long before the idle timeout
        // Then each takes the place of the viewer whose stream went first, and the server is full again
        #expect(registry.create() != nil)
        #expect(registry.session(first.id) == nil && registry.session(second.id) != nil)
        #expect(registry.create() != nil)
        #expect(registry.session(second.id) == nil)
        #expect(registry.create() == nil)
        #expect(registry.session(connecting.id) != nil && registry.session(reading.id) != nil)
        #expect(registry.count == 4)
    }
}

extension EventOutbox.Item: Equatable {
    static func == (lhs: EventOutbox.Item, rhs: EventOutbox.Item) -> Bool {
        switch (lhs, rhs) {
        case (.heartbeat, .heartbeat): true
        case (.events(let a), .events(let b)): a.map(\.id) == b.map(\.id)
        default: false
        }
    }
}
