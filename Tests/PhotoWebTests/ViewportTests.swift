import HTTPTypes
import Foundation
@testable import PhotoWeb
import Testing
import PhotoPipeline
import PhotoServer
import SampleOrigin

@Suite("Viewport API", .serialized)
struct ViewportTests {
    static let malformed: [(body: String, status: Int, reason: String)] = [
        ("", 400, "empty body"),
        ("not json", 400, "not valid JSON"),
        ("[1, 2]", 400, "not a JSON object"),
        (#"{"scrolling": false, "first": 0, "last": 1}"#, 400, "\"viewer\" must be a non-empty string"),
        (#"{"viewer": "VIEWER", "first": 0, "last": 1}"#, 400, "\"scrolling\" must be true or false"),
        (#"{"viewer": "VIEWER", "scrolling": "no", "first": 0, "last": 1}"#, 400, "\"scrolling\" has the wrong type"),
        (#"{"viewer": "VIEWER", "scrolling": false}"#, 400, "required when not scrolling"),
        (#"{"viewer": "VIEWER", "scrolling": false, "first": 1.5, "last": 3}"#, 400, "\"first\" has the wrong type"),
        (#"{"viewer": "VIEWER", "scrolling": false, "first": 2}"#, 400, "go together"),
        (#"{"viewer": "VIEWER", "scrolling": false, "first": 5, "last": 2}"#, 422, "is after"),
        (#"{"viewer": "VIEWER", "scrolling": false, "first": -1, "last": 2}"#, 422, "must not be negative"),
        (#"{"viewer": "VIEWER", "scrolling": false, "first": 0, "last": 12}"#, 422, "past the end of the list"),
        (#"{"viewer": "nobody", "scrolling": false, "first": 0, "last": 1}"#, 404, "unknown viewer nobody"),
        // What a person's scroll shows (told to a presenter's followers): only without rows, within the list
        (#"{"viewer": "VIEWER", "scrolling": true, "first": 0, "last": 1, "showing": {"first": 0, "last": 1}}"#, 400, "leave out \"first\""),
        (#"{"viewer": "VIEWER", "scrolling": false, "showing": null}"#, 400, "required when not scrolling"),
        (#"{"viewer": "VIEWER", "scrolling": true, "showing": [0, 1]}"#, 400, "\"showing\" has the wrong type: an object"),
        (#"{"viewer": "VIEWER", "scrolling": true, "showing": {"first": 1}}"#, 400, "\"showing\" has the wrong type"),
        (#"{"viewer": "VIEWER", "scrolling": true, "showing": {"first": 3, "last": 1}}"#, 422, "is after \"showing.last\""),
        (#"{"viewer": "VIEWER", "scrolling": true, "showing": {"first": -2, "last": 1}}"#, 422, "must not be negative"),
        (#"{"viewer": "VIEWER", "scrolling": true, "showing": {"first": 5, "last": 12}}"#, 422, "past the end of the list"),
    ]

    @Test func malformedReportsGetA4xxWithAReasonAndTheServerCarriesOn() async throws {
        try await WebHarness.with { harness in
            let viewer = try await harness.newViewer()
            for (body, status, reason) in Self.malformed {
                let response = try await harness.post("/api/viewport", json: body.replacingOccurrences(of: "VIEWER", with: viewer))
                #expect(response.status == status, "\(body)")
                #expect((response.json["error"] as? String)?.contains(reason) == true, "\(body) -> \(response.text)")
            }
            let huge = try await harness.post("/api/viewport", json: String(repeating: " ", count: 20_000) + "{}")
            #expect(huge.status == 413)

            // None of that started any work, and a good report still works
            #expect(harness.pipeline.stats.downloads.started == 0)
            try await harness.report(viewer, scrolling: false, rows: 0...1)
        }
    }

    @Test func scrollingSuspendsThatViewerOnlyAndStoppingLoadsTheVisibleRows() async throws {
        try await WebHarness.with(configure: { $0.sample.latency = .milliseconds(50) }) { harness in
            let scroller = try await harness.newViewer()
            let reader = try await harness.newViewer()
            let scrollerEvents = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(scroller)")
            let readerEvents = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(reader)")

            // Given one viewer scrolling
            try await harness.report(scroller, scrolling: true)
            let suspended = try await scrollerEvents.next { event in
                event.name == "queues" && ((event.json["download"] as? [String: Any])?["suspended"] as? Bool) == true
            }
            #expect(suspended.id != nil)

            // When another stops on rows 4-5, its rows load while the scroller's queues stay suspended
            try await harness.report(reader, scrolling: false, rows: 4...5)
            try await readerEvents.waitUntilFiltered(4...5)
            #expect(harness.application.web.context.viewers.session(.init(scroller))?.queuesIfChanged().map(\.download.suspended) ?? true)

            // And when the scroller stops on rows 0-1, exactly those load for it
            try await harness.report(scroller, scrolling: false, rows: 0...1)
            try await scrollerEvents.waitUntilFiltered(0...1)
            let states = harness.pipeline.records(in: 0...(harness.pipeline.entries.count - 1)).map(\.state.name)
            #expect(states[2] == "new" && states[3] == "new" && states[6...].allSatisfy { $0 == "new" || $0 == "failed" })
        }
    }
}

@Suite("Viewport API: a strategy per tab")
struct StrategyPerViewerTests {
    @Test func aViewerFollowsTheStrategyItAsksForAndItsEventsSaySo() async throws {
        try await WebHarness.with(configure: { $0.web.strategy = .prefetch(margin: 3) }) { harness in
            let created = try await harness.post("/api/viewers", json: #"{"strategy": "visible"}"#)
            #expect(created.status == 201)
            let viewer = try #require(created.json["viewer"] as? String)
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            let snapshot = try await stream.next { $0.name == "snapshot" }
            #expect(snapshot.json["strategy"] as? String == "visible")

            // Changing it on the way: a prefetching viewer asks for rows beyond the screen.
            try await harness.report(viewer, scrolling: false, rows: 0...1)
            let changed = try await harness.post(
                "/api/viewport", json: #"{"viewer": "\#(viewer)", "scrolling": false, "first": 0, "last": 1, "strategy": "prefetch", "prefetch": 2}"#)
            #expect(changed.status == 204)
            let queues = try await stream.next { $0.name == "queues" && $0.json["strategy"] as? String == "prefetch" }
            #expect(queues.json["prefetch"] as? Int == 2)
            let controller = try #require(harness.application.web.context.viewers.session(.init(viewer))?.existingController)
            #expect(controller.strategy == .prefetch(margin: 2))

            #expect(try await harness.post("/api/viewers", json: #"{"strategy": "fastest"}"#).status == 400)
            #expect(try await harness.post("/api/viewers", json: #"{"strategy": "prefetch", "prefetch": 99}"#).status == 422)
            #expect(try await harness.post("/api/viewers", json: "[1]").status == 400)
        }
    }
}
