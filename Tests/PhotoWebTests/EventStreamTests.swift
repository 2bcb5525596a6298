import HTTPTypes
import Foundation
@testable import PhotoWeb
import Testing
import PhotoServer

@Suite("Server-sent events", .serialized)
struct EventStreamTests {
    @Test func aStreamStartsWithRetryTheSourceASnapshotAndNumberedEvents() async throws {
        try await WebHarness.with { harness in
            let viewer = try await harness.newViewer()
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            #expect(stream.status == 200)
            #expect(stream.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            #expect(stream.headers["x-accel-buffering"] == "no")

            let source = try #require(try await stream.next())
            #expect(stream.retry == 2_000)
            #expect(source.name == "source")
            #expect(source.json["status"] as? String == "ready")
            let snapshot = try #require(try await stream.next())
            #expect(snapshot.name == "snapshot")
            #expect((snapshot.json["photos"] as? [Any])?.count == 12)
            #expect(snapshot.id == source.id.map { $0 + 1 })

            try await harness.report(viewer, scrolling: false, rows: 0...0)
            var ids: [UInt64] = []
            _ = try await stream.next { event in
                ids.append(event.id ?? 0)
                return event.name == "photo" && event.json["state"] as? String == "filtered"
            }
            #expect(ids == ids.sorted() && Set(ids).count == ids.count)
        }
    }

    @Test func aReconnectWithLastEventIDReceivesWhatItMissed() async throws {
        try await WebHarness.with { harness in
            let viewer = try await harness.newViewer()
            var stream: EventStreamReader? = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            let snapshot = try await stream!.next { $0.name == "snapshot" }
            let lastSeen = try #require(snapshot.id)

            // Given the viewer goes away and events happen meanwhile
            stream = nil
            try await harness.report(viewer, scrolling: false, rows: 0...0)

            // When it reconnects with Last-Event-ID, it gets what came after that id, in order, with a
            // photo's (or the queues', or the totals') superseded updates collapsed to the latest:
            // never a snapshot, never an event it already had
            let resumed = try await EventStreamReader(
                port: harness.application.port, target: "/events?viewer=\(viewer)",
                headers: ["Last-Event-ID": String(lastSeen)])
            var replayed: [EventStreamReader.Event] = []
            _ = try await resumed.next { event in
                replayed.append(event)
                return event.name == "photo" && event.json["state"] as? String == "filtered"
            }
            let ids = replayed.compactMap(\.id)
            #expect(ids.count == replayed.count && ids.allSatisfy { $0 > lastSeen } && ids == ids.sorted())
            #expect(!replayed.contains { $0.name == "snapshot" || $0.name == "source" })

            // And an id it cannot account for gets a fresh snapshot
            let confused = try await EventStreamReader(
                port: harness.application.port, target: "/events?viewer=\(viewer)",
                headers: ["Last-Event-ID": "999999"])
            #expect(try await confused.next()?.name == "source")
            #expect(try await confused.next()?.name == "snapshot")
        }
    }

    @Test func aQuietStreamGetsHeartbeats() async throws {
        try await WebHarness.with(configure: { $0.web.heartbeatInterval = .milliseconds(200) }) { harness in
            let viewer = try await harness.newViewer()
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            #expect(try await stream.nextComment() == "ping")
        }
    }

    @Test func anUnknownViewerIsA404() async throws {
        try await WebHarness.with { harness in
            let response = try await harness.request(.GET, "/events?viewer=nobody")
            #expect(response.status == 404)
            #expect((response.json["error"] as? String)?.contains("unknown viewer") == true)
        }
    }
}

@Suite("Server-sent events: rows of interest")
struct InterestTests {
    @Test func aRowFarFromAViewersListIsNotSentUntilItComesNearThenItsStateIs() async throws {
        try await WebHarness.with(photoCount: 120) { harness in
            let far = try await harness.newViewer()
            let near = try await harness.newViewer()
            let farStream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(far)")
            let nearStream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(near)")
            _ = try await farStream.next { $0.name == "snapshot" }
            _ = try await nearStream.next { $0.name == "snapshot" }
            // `far` looks at the end of the list: row 0 is more than the margin away.
            try await harness.report(far, scrolling: false, rows: 115...119)
            try await harness.report(near, scrolling: false, rows: 0...0)
            _ = try await nearStream.next { $0.name == "photo" && $0.json["index"] as? Int == 0 && $0.json["state"] as? String == "filtered" }

            // Coming near: the first word `far` hears of row 0 is its state now.
            try await harness.report(far, scrolling: false, rows: 0...3)
            let first = try await farStream.next { $0.name == "photo" && $0.json["index"] as? Int == 0 }
            #expect(first.json["state"] as? String == "filtered")
        }
    }
}
