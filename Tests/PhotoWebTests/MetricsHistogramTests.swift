import Foundation
import PhotoServer
@testable import PhotoWeb
import Testing

/// `/metrics`'s latency histograms (issue 61): an answer's duration by route and status, whoever
/// answers it (the router or the event loop), and an event's delivery from the pipeline to each
/// stream it is written on; with the streams open and the bytes queued for viewers. Read from the
/// exposition text, as Prometheus reads it.
@Suite("Latency histograms in /metrics", .serialized, .timeLimit(.minutes(3)))
struct MetricsHistogramTests {
    @Test func answersAreTimedByRouteAndStatusOnTheRouterAndOnTheEventLoop() async throws {
        try await WebHarness.with(photoCount: 12) { harness in
            // Given a viewer, and the figures before
            let viewer = try await harness.newViewer()
            let before = try await MetricsText(harness)
            let readyBefore = ReadyViewportReportsTests.answered(harness)

            // When a report is taken on the event loop, another through the router, and a routed GET
            #expect(try await harness.post("/api/viewport", json: ReadyViewportReportsTests.report(viewer, rows: 0...1)).status == 204)
            #expect(ReadyViewportReportsTests.answered(harness) == readyBefore + 1)
            #expect(try await harness.post("/api/viewport?by=route", json: #"{"viewer": "\#(viewer)", "scrolling": true}"#).status == 204)
            #expect(try await harness.request(.GET, "/api/stats").status == 200)
            let after = try await MetricsText(harness)

            // Then each is one more in its route's histogram: both reports (ready and routed) under the route's labels
            let report = ["route": "POST /api/viewport", "status": "204"]
            let stats = ["route": "GET /api/stats", "status": "200"]
            #expect(after.value("http_request_duration_seconds_count", report) - before.value("http_request_duration_seconds_count", report) == 2)
            #expect(after.value("http_request_duration_seconds_count", stats) - before.value("http_request_duration_seconds_count", stats) == 1)
            #expect(after.value("http_request_duration_seconds_sum", stats) > 0)

            // And every series has the declared buckets, cumulative, +Inf its count, the count the request counter's
            let series = after.histograms("http_request_duration_seconds")
            #expect(series.count >= 3)
            for (labels, buckets) in series {
                after.expectWellFormed(buckets, "http_request_duration_seconds", labels)
                #expect(after.value("http_requests_total", labels) == after.value("http_request_duration_seconds_count", labels), "\(labels)")
            }
        }
    }

    @Test func eventsAreTimedFromThePipelineToEachStreamTheyAreWrittenOn() async throws {
        try await WebHarness.with(photoCount: 12) { harness in
            // Given a viewer reading its own stream, and another riding a shared one
            let own = try await harness.newViewer()
            let ownStream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(own)")
            _ = try await ownStream.next { $0.name == "snapshot" }
            let rider = try await harness.newViewer()
            let shared = try await EventStreamReader(port: harness.application.port, target: "/events/shared")
            let id = try #require(try await shared.next { $0.name == "stream" }.json["stream"] as? String)
            #expect(try await harness.post("/api/streams/\(id)/viewers", json: #"{"viewer": "\#(rider)"}"#).status == 204)
            _ = try await shared.next { $0.name == "snapshot" }
            let before = try await MetricsText(harness)
            #expect(before.value("classic_photos_event_streams", ["stream": "own"]) == 1)
            #expect(before.value("classic_photos_event_streams", ["stream": "shared"]) == 1)
            #expect(before.histograms("classic_photos_event_delivery_seconds").count == 2)

            // When each reports a row, reads its events until the row is filtered, then reports a
            // second row and reads its first event: that came in a later write than the first row's
            // events, so those were counted before it was written
            try await Self.readRows(first: 0, second: 3, of: own, on: ownStream, harness)
            try await Self.readRows(first: 8, second: 11, of: rider, on: shared, harness)
            let after = try await MetricsText(harness)

            // Then each stream's delivery histogram has more events, at least the first row's
            // several (downloading, downloaded, filtering, filtered) and its operations
            for kind in ["own", "shared"] {
                let labels = ["stream": kind]
                let moved = after.value("classic_photos_event_delivery_seconds_count", labels)
                    - before.value("classic_photos_event_delivery_seconds_count", labels)
                #expect(moved >= 4, "\(kind): \(moved)")
                #expect(after.value("classic_photos_event_delivery_seconds_sum", labels) > 0)
            }
            for (labels, buckets) in after.histograms("classic_photos_event_delivery_seconds") {
                after.expectWellFormed(buckets, "classic_photos_event_delivery_seconds", labels)
            }
            // And the gauges are there: the streams still open, the viewers, the bytes queued for them
            #expect(after.value("classic_photos_event_streams", ["stream": "own"]) == 1)
            #expect(after.series("classic_photos_viewers").count == 1)
            #expect(after.series("classic_photos_unsent_event_bytes").count == 1)
        }
    }

    /// Has `viewer` report row `first` and reads `stream` until it is filtered, then row `second` until its first event.
    static func readRows(first: Int, second: Int, of viewer: String, on stream: EventStreamReader, _ harness: WebHarness) async throws {
        try await harness.report(viewer, scrolling: false, rows: first...first)
        _ = try await stream.next { photo(of: $0, index: first, state: "filtered") }
        try await harness.report(viewer, scrolling: false, rows: second...second)
        _ = try await stream.next { photo(of: $0, index: second, state: nil) }
    }

    /// Whether `event` (on a viewer's own stream or a shared one) is photo `index`'s, in `state` if given.
    static func photo(of event: EventStreamReader.Event, index: Int, state: String?) -> Bool {
        guard event.name == "photo" else { return false }
        let data = event.json["data"] as? [String: Any] ?? event.json
        return data["index"] as? Int == index && (state == nil || data["state"] as? String == state)
    }
}
