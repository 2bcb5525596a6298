import Foundation
import HTTPTypes
import Hummingbird
import Locking
import NIOCore
@testable import PhotoWeb
import PhotoPipeline
import Testing

/// Events queued together reach their connection in one write (one chunk, one syscall), on a viewer's
/// own stream and on a shared one: a crowd's bursts cost a write each, not a write per event.
@Suite("Events queued together are written at once")
struct EventBatchWriteTests {
    private func photo(_ index: Int) -> EventOutbox.Payload {
        .init(name: .photo, data: Data(#"{"index":\#(index),"state":"filtered"}"#.utf8), photoIndex: index)
    }

    private func photoEvents(in body: String) -> Int {
        body.components(separatedBy: "event: photo\n").count - 1
    }

    @Test(.timeLimit(.minutes(1)))
    func aViewersStreamWritesEventsQueuedTogetherInOneWrite() async throws {
        // Given a viewer's stream with twenty events queued before its writer runs, then closed
        let outbox = EventOutbox()
        let generation = outbox.attach(lastEventID: nil) { [] }
        outbox.enqueue(contentsOf: (0..<20).map { photo($0) })
        outbox.close()

        // When its writer writes them out
        let writes = BodyWrites()
        var writer: any ResponseBodyWriter = RecordingBodyWriter(writes: writes)
        try await ServerSentEventStream(outbox: outbox, generation: generation, retry: .seconds(1), meter: ServerMetrics().ownStreams).write(to: &writer)

        // Then the connection got the retry line, then one write with all twenty, then the end
        let bodies = writes.all
        #expect(bodies.count == 2)
        #expect(bodies.last.map { photoEvents(in: $0) } == 20)
        #expect(writes.finished)
    }

    @Test(.timeLimit(.minutes(1)))
    func aSharedStreamWritesAMembersReadyEventsInOneWrite() async throws {
        // Given a shared stream whose member has a snapshot and twenty events ready when it joins
        let viewers = TestViewers(maxViewers: 4, idleTimeout: .seconds(30))
        let session = try #require(viewers.create())
        let stream = SharedEventStream(maxViewers: 4)
        try stream.join(session, lastEventID: nil) {
            [EventOutbox.Payload(name: .snapshot, data: Data("{}".utf8))] + (0..<20).map { photo($0) }
        }

        // When the stream's writer runs
        let writes = BodyWrites()
        let writing = Task {
            var writer: any ResponseBodyWriter = RecordingBodyWriter(writes: writes)
            try await SharedEventWriter(stream: stream, retry: .seconds(1), meter: ServerMetrics().sharedStreams).write(to: &writer)
        }

        // Then after the retry line and the `stream` event, one write carries the snapshot and all twenty
        let first = await writes.first(3)
        #expect(first[1].contains("event: stream\n"))
        #expect(first[2].contains("event: snapshot\n") && photoEvents(in: first[2]) == 20)
        stream.close()
        try await writing.value
        #expect(writes.all.count == 3, "nothing was left for another write")
    }

    @Test(.timeLimit(.minutes(1)))
    func aMemberItsOutboxCutOffIsLeftAndTheOthersGoOn() async throws {
        // Given a shared stream carrying two viewers, and one of them sent more than its outbox holds
        // before the stream's writer came for it (its outbox cuts it off: it needs a snapshot)
        let viewers = TestViewers(maxViewers: 4, idleTimeout: .seconds(30))
        let (behind, reading) = (try #require(viewers.create()), try #require(viewers.create()))
        let stream = SharedEventStream(maxViewers: 4)
        try stream.join(behind, lastEventID: nil) { [] }
        try stream.join(reading, lastEventID: nil) { [] }
        behind.outbox.enqueue(contentsOf: (0...behind.outbox.limit).map { photo($0) })
        reading.outbox.enqueue(contentsOf: (0..<3).map { photo($0) })

        // When the stream's writer runs
        let writes = BodyWrites()
        let writing = Task {
            var writer: any ResponseBodyWriter = RecordingBodyWriter(writes: writes)
            try await SharedEventWriter(stream: stream, retry: .seconds(1), meter: ServerMetrics().sharedStreams).write(to: &writer)
        }

        // Then the page is told the viewer that fell behind is no longer carried, in the same write as
        // the other's three events, and the stream goes on carrying the other alone
        let body = await writes.first(3)[2]
        #expect(body.contains("event: left\ndata: {\"viewer\":\"\(behind.id.rawValue)\"}"))
        #expect(photoEvents(in: body) == 3 && body.contains("\"viewer\":\"\(reading.id.rawValue)\""))
        #expect(stream.viewers == [reading.id])
        // And what the other is sent next still reaches it
        reading.outbox.enqueue(photo(7))
        #expect(await writes.first(4)[3].contains(#"{"index":7,"#))
        stream.close()
        try await writing.value
    }
}
