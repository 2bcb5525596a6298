import Foundation
@testable import PhotoWeb
import Testing
import PhotoPipeline
import PhotoServer
import SampleOrigin

@Suite("One event stream carries several viewers", .serialized)
struct SharedStreamTests {
    /// Opens `GET /events/shared` and reads its `stream` event: the reader and the stream's id.
    private func openShared(_ harness: WebHarness) async throws -> (EventStreamReader, String) {
        let reader = try await EventStreamReader(port: harness.application.port, target: "/events/shared")
        #expect(reader.status == 200)
        let opened = try await reader.next { $0.name == "stream" }
        #expect(opened.json["maxViewers"] as? Int == SharedStreams.maxViewersPerStream)
        return (reader, try #require(opened.json["stream"] as? String))
    }

    private func join(_ harness: WebHarness, _ stream: String, _ viewer: String, lastEventID: UInt64? = nil) async throws -> TestResponse {
        let last = lastEventID.map { #", "lastEventId": \#($0)"# } ?? ""
        return try await harness.post("/api/streams/\(stream)/viewers", json: #"{"viewer": "\#(viewer)"\#(last)}"#)
    }

    /// A viewer's event on a shared stream: whose it is, its own id, its payload.
    private func whose(_ event: EventStreamReader.Event) -> (viewer: String?, id: Int?, data: [String: Any]) {
        (event.json["viewer"] as? String, event.json["id"] as? Int, event.json["data"] as? [String: Any] ?? [:])
    }

    @Test func twoViewersOnOneStreamEachGetTheirOwnSnapshotAndEventsSayWhose() async throws {
        try await WebHarness.with { harness in
            // Given one shared stream and two viewers joined to it
            let (reader, stream) = try await openShared(harness)
            let first = try await harness.newViewer()
            let second = try await harness.newViewer()
            #expect(try await join(harness, stream, first).status == 204)
            #expect(try await join(harness, stream, second).status == 204)

            // Then each gets its own snapshot on that one connection, each event naming its viewer
            var snapshots: Set<String> = []
            _ = try await reader.next { event in
                if event.name == "snapshot", let viewer = whose(event).viewer { snapshots.insert(viewer) }
                return snapshots == [first, second]
            }

            // When only the first reports rows, its rows' events come marked as its own, in its own id order
            try await harness.report(first, scrolling: false, rows: 0...1)
            var ids: [Int] = []
            let done = try await reader.next { event in
                let (viewer, id, data) = whose(event)
                if viewer == first, let id { ids.append(id) }
                return viewer == first && event.name == "photo" && data["index"] as? Int == 1 && data["state"] as? String == "filtered"
            }
            #expect(done.id == nil, "a shared stream's events carry each viewer's id in their data, not an SSE id")
            #expect(ids == ids.sorted() && Set(ids).count == ids.count)
            #expect(try Set(harness.application.web.context.viewers.streams.stream(stream).viewers.map(\.rawValue)) == [first, second])
        }
    }

    @Test func aViewerThatLeavesAndJoinsAgainWithItsLastEventIdGetsWhatItMissed() async throws {
        try await WebHarness.with { harness in
            let (reader, stream) = try await openShared(harness)
            let viewer = try await harness.newViewer()
            #expect(try await join(harness, stream, viewer).status == 204)
            let snapshot = try await reader.next { $0.name == "snapshot" && whose($0).viewer == viewer }
            let lastSeen = try #require(whose(snapshot).id)

            // Given it leaves the stream (it stays a viewer) and its rows are worked on meanwhile
            #expect(try await harness.request(.DELETE, "/api/streams/\(stream)/viewers/\(viewer)").status == 204)
            #expect(try await harness.request(.DELETE, "/api/streams/\(stream)/viewers/\(viewer)").status == 404)
            try await harness.report(viewer, scrolling: false, rows: 0...0)
            try await waitUntil { harness.pipeline.record(0).state.isFinal }

            // When it joins again with the last id it had
            #expect(try await join(harness, stream, viewer, lastEventID: UInt64(lastSeen)).status == 204)

            // Then it gets what came after, no snapshot, up to its row done
            var replayed: [EventStreamReader.Event] = []
            _ = try await reader.next { event in
                guard whose(event).viewer == viewer else { return false }
                replayed.append(event)
                return event.name == "photo" && whose(event).data["state"] as? String == "filtered"
            }
            #expect(!replayed.contains { $0.name == "snapshot" || $0.name == "source" })
            #expect(replayed.allSatisfy { (whose($0).id ?? 0) > lastSeen })
        }
    }

    @Test func aViewerThatJoinsAnotherStreamLeavesTheFirstWhichSaysSo() async throws {
        try await WebHarness.with { harness in
            let (firstReader, firstStream) = try await openShared(harness)
            let (secondReader, secondStream) = try await openShared(harness)
            let viewer = try await harness.newViewer()
            #expect(try await join(harness, firstStream, viewer).status == 204)
            _ = try await firstReader.next { $0.name == "snapshot" }

            // When the viewer joins the second stream (a browser whose connection was renewed)
            #expect(try await join(harness, secondStream, viewer).status == 204)

            // Then the first says it no longer carries it, and the second does
            let left = try await firstReader.next { $0.name == "left" }
            #expect(left.json["viewer"] as? String == viewer)
            _ = try await secondReader.next { $0.name == "snapshot" && whose($0).viewer == viewer }
        }
    }

    @Test func aStreamCarriesAtMostItsBoundOfViewers() async throws {
        try await WebHarness.with { harness in
            let (reader, stream) = try await openShared(harness)
            defer { withExtendedLifetime(reader) {} }
            for _ in 0..<SharedStreams.maxViewersPerStream {
                #expect(try await join(harness, stream, try await harness.newViewer()).status == 204)
            }
            // One more is refused, with the reason; one already carried may join again
            let refused = try await join(harness, stream, try await harness.newViewer())
            #expect(refused.status == 409)
            #expect((refused.json["error"] as? String)?.contains("carries its most viewers (\(SharedStreams.maxViewersPerStream))") == true)
            let carried = try #require(try harness.application.web.context.viewers.streams.stream(stream).viewers.first)
            #expect(try await join(harness, stream, carried.rawValue).status == 204)
        }
    }

    @Test func joinsNameAnOpenStreamAndAKnownViewer() async throws {
        // A closed connection is noticed at the next write: heartbeats come often here
        try await WebHarness.with(configure: { $0.web.heartbeatInterval = .milliseconds(200) }) { harness in
            let viewer = try await harness.newViewer()
            let noStream = try await join(harness, "nope", viewer)
            #expect(noStream.status == 404)
            #expect((noStream.json["error"] as? String)?.contains("no open event stream nope") == true)
            var (reader, stream): (EventStreamReader?, String) = try await openShared(harness)
            #expect(try await join(harness, stream, "nobody").status == 404)
            #expect(try await harness.post("/api/streams/\(stream)/viewers", json: "[1]").status == 400)
            #expect(try await harness.post("/api/streams/\(stream)/viewers", json: #"{"viewer": "\#(viewer)", "lastEventId": -1}"#).status == 422)
            #expect(try await harness.post("/api/streams/\(stream)/viewers", json: #"{"viewer": "\#(viewer)", "lastEventId": "x"}"#).status == 400)

            // When the stream's connection closes, its viewer is free and the stream is gone
            #expect(try await join(harness, stream, viewer).status == 204)
            _ = try await reader?.next { $0.name == "snapshot" }
            reader = nil
            try await waitUntil { harness.application.web.context.viewers.streams.count == 0 }
            #expect(try await join(harness, stream, viewer).status == 404)
        }
    }

    @Test func aHiddenViewersWorkIsGivenUpAndPicksUpWhenShown() async throws {
        // Given a slow origin, so the rows' work is still under way when the tab is hidden
        try await WebHarness.with(configure: { $0.sample.latency = .seconds(2) }) { harness in
            let (reader, stream) = try await openShared(harness)
            let viewer = try await harness.newViewer()
            #expect(try await join(harness, stream, viewer).status == 204)
            try await harness.report(viewer, scrolling: false, rows: 0...3)
            #expect(!harness.pipeline.pendingRows(of: .init(viewer)).isEmpty)

            // When its tab says it is hidden
            let hidden = try await harness.post("/api/viewport", json: #"{"viewer": "\#(viewer)", "hidden": true}"#)
            #expect(hidden.status == 204)

            // Then nothing is wanted for it any more, and the work only it wanted is cancelled
            #expect(harness.pipeline.pendingRows(of: .init(viewer)).isEmpty)
            let session = try #require(harness.application.web.context.viewers.session(.init(viewer)))
            #expect(session.existingController == nil)
            _ = try await reader.next { $0.name == "operation" && whose($0).data["outcome"] as? String == "cancelled" }

            // And shown again, it reports its rows and they are done
            try await harness.report(viewer, scrolling: false, rows: 0...3)
            var waiting = Set(0...3)
            _ = try await reader.next(where: { event in
                let data = whose(event).data
                if whose(event).viewer == viewer, event.name == "photo", data["state"] as? String == "filtered", let index = data["index"] as? Int {
                    waiting.remove(index)
                }
                return waiting.isEmpty
            }, timeout: .seconds(90))
        }
    }

    /// Waits (polling a condition the server sets, bounded) until `condition` holds.
    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestFailure("condition not met within 60 s") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
