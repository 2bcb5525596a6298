import Foundation
import HTTPTypes
import Hummingbird
import Locking
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
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
        try await ServerSentEventStream(outbox: outbox, generation: generation, retry: .seconds(1)).write(to: &writer)

        // Then the connection got the retry line, then one write with all twenty, then the end
        let bodies = writes.all
        #expect(bodies.count == 2)
        #expect(bodies.last.map { photoEvents(in: $0) } == 20)
        #expect(writes.finished)
    }

    /// The next body part the writer handed `channel`, as text.
    private func nextBody(on channel: NIOAsyncTestingChannel) async throws -> String {
        guard case .body(let buffer) = try await channel.waitForOutboundWrite(as: HTTPResponsePart.self) else {
            throw TestFailure("a part other than a body was written")
        }
        return String(buffer: buffer)
    }

    /// A shared stream's writer on a test channel, running until the stream ends.
    private func writing(_ stream: SharedEventStream, on channel: NIOAsyncTestingChannel) -> Task<Void, any Error> {
        Task { try await SharedEventWriter(stream: stream, retry: .seconds(1), heartbeat: .seconds(600), channel: channel).write() }
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
        let channel = NIOAsyncTestingChannel()
        let writer = writing(stream, on: channel)

        // Then the retry line and the `stream` event go in one write, and one write carries the snapshot and all twenty
        let opening = try await nextBody(on: channel)
        #expect(opening.hasPrefix("retry: 1000\n\n") && opening.contains("event: stream\n"))
        let events = try await nextBody(on: channel)
        #expect(events.contains("event: snapshot\n") && photoEvents(in: events) == 20)
        stream.close()
        try await writer.value
        #expect(try await channel.readOutbound(as: HTTPResponsePart.self) == nil, "nothing was left for another write")
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
        let channel = NIOAsyncTestingChannel()
        let writer = writing(stream, on: channel)

        // Then the page is told the viewer that fell behind is no longer carried, in the same write as
        // the other's three events, and the stream goes on carrying the other alone
        _ = try await nextBody(on: channel)
        let body = try await nextBody(on: channel)
        #expect(body.contains("event: left\ndata: {\"viewer\":\"\(behind.id.rawValue)\"}"))
        #expect(photoEvents(in: body) == 3 && body.contains("\"viewer\":\"\(reading.id.rawValue)\""))
        #expect(stream.viewers == [reading.id])
        // And what the other is sent next is written as it comes
        reading.outbox.enqueue(photo(7))
        #expect(try await nextBody(on: channel).contains(#"{"index":7,"#))
        stream.close()
        try await writer.value
    }

    @Test(.timeLimit(.minutes(1)))
    func aSharedStreamEndsWhenItsConnectionClosesOrItsTaskIsCancelled() async throws {
        let viewers = TestViewers(maxViewers: 4, idleTimeout: .seconds(30))
        let session = try #require(viewers.create())

        // Given a stream carrying a viewer, written on a connection that then closes
        let stream = SharedEventStream(maxViewers: 4)
        try stream.join(session, lastEventID: nil) { [] }
        let channel = NIOAsyncTestingChannel()
        let writer = writing(stream, on: channel)
        _ = try await nextBody(on: channel)
        try await channel.close()
        // Then the writer ends with an error (the client went away) and the stream carries nobody
        await #expect(throws: (any Error).self) { try await writer.value }
        #expect(stream.viewers.isEmpty)
        #expect(throws: SharedStreamError.self) { try stream.join(session, lastEventID: nil) { [] } }

        // And a stream whose writer's task is cancelled (a stopping server) ends as well
        let other = SharedEventStream(maxViewers: 4)
        let open = NIOAsyncTestingChannel()
        let cancelled = writing(other, on: open)
        _ = try await nextBody(on: open)
        cancelled.cancel()
        try await cancelled.value
        #expect(throws: SharedStreamError.self) { try other.join(session, lastEventID: nil) { [] } }
    }
}
