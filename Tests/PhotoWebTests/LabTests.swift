import Foundation
import HTTPTransfer
import PhotoCodecs
import PhotoPipeline
@testable import PhotoWeb
import TestOrigin
import Testing
import HTTPTypes
import PhotoServer

@Suite("The lab: POST/GET/DELETE /api/labs, lanes of their own, the cap and tear-down", .serialized)
struct LabTests {
    @Test func aLabAnswers201WithEachLanesViewerAndTimesItsStops() async throws {
        // The eager lane's viewer never opens its stream here: the lab must not end for that while a
        // loaded machine takes its time (the idle rules have tests of their own).
        try await WebHarness.with(configure: { $0.web.viewerConnectTimeout = .seconds(600); $0.web.labIdleTimeout = .seconds(600) }) { harness in
            // When a lab of three lanes is made
            let created = try await harness.post("/api/labs", json: """
                {"lanes": [{"strategy": "eager"}, {"strategy": "prefetch", "prefetch": 2}, {"strategy": "browser"}],
                 "latencyMs": 0, "bandwidth": 50000000, "photos": 8}
                """)
            // Then it answers 201 with a viewer per server lane and the browser lane's images
            #expect(created.status == 201)
            let lab = try #require(created.json["lab"] as? String)
            let lanes = try #require(created.json["lanes"] as? [[String: Any]])
            #expect(lanes.map { $0["strategy"] as? String } == ["eager", "prefetch", "browser"])
            #expect(lanes[1]["prefetch"] as? Int == 2)
            #expect(lanes[2]["viewer"] == nil && (lanes[2]["images"] as? [String])?.count == 8)
            #expect((lanes[2]["images"] as? [String])?.first?.contains("/lab/images/") == true)
            #expect(created.json["latencyMs"] as? Int == 0 && created.json["photos"] as? Int == 8)

            // And the prefetch lane's viewer uses the usual routes, on a list of the lab's 8 photos
            let viewer = try #require(lanes[1]["viewer"] as? String)
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            let snapshot = try await stream.next { $0.name == "snapshot" }
            #expect((snapshot.json["photos"] as? [Any])?.count == 8)
            #expect(snapshot.json["strategy"] as? String == "prefetch")
            try await harness.report(viewer, scrolling: false, rows: 0...3)
            try await stream.waitUntilFiltered(0...3)
            let thumbnail = try await harness.request(.GET, "/photos/0/thumbnail?viewer=\(viewer)")
            #expect(thumbnail.status == 200)

            // And its figures show the stop, timed, and the bytes it downloaded
            let report = try await harness.request(.GET, "/api/labs/\(lab)")
            let prefetch = try #require((report.json["lanes"] as? [[String: Any]])?[1])
            let stops = try #require(prefetch["stops"] as? [[String: Any]])
            #expect(stops.count == 1 && stops[0]["first"] as? Int == 0 && stops[0]["last"] as? Int == 3)
            #expect(stops[0]["ms"] is Double)
            #expect((prefetch["bytesDownloaded"] as? Int ?? 0) > 0)
            // And the eager lane, never reported to, did nothing meanwhile: a lane starts at its first report
            let eager = try #require((report.json["lanes"] as? [[String: Any]])?[0])
            #expect(eager["bytesDownloaded"] as? Int == 0 && eager["downloads"] as? Int == 0)
            // The server's own list did none of this work
            #expect(harness.pipeline.stats.bytesDownloaded == 0)
        }
    }

    @Test func badBodiesAre400WithTheReason() async throws {
        try await WebHarness.with { harness in
            let cases: [(String, String)] = [
                ("nope", "body must be a JSON object"),
                (#"{"lanes": []}"#, #""lanes" must be a non-empty list"#),
                (#"{"lanes": [{"strategy": "fast"}]}"#, "lane 0: \"strategy\" must be eager, visible, prefetch or serial"),
                (#"{"lanes": [{"strategy": "prefetch", "prefetch": 99}]}"#, "lane 0: \"prefetch\" must be 0 to 50"),
                (#"{"lanes": [{"strategy": "browser"}]}"#, "at least one lane run by the server"),
                (#"{"lanes": [{"strategy": "eager"}], "latencyMs": -1}"#, #""latencyMs" must be from 0"#),
                (#"{"lanes": [{"strategy": "eager"}], "bandwidth": "fast"}"#, #""bandwidth" has the wrong type"#),
                (#"{"lanes": [{"strategy": "eager"}], "photos": 13}"#, #""photos" must be from 1 to 12"#),
                (#"{"lanes": [1]}"#, "lane 0 is not an object"),
                (#"{"lanes": [{"strategy": "eager"}, {"strategy": "eager"}, {"strategy": "eager"}, {"strategy": "eager"}, {"strategy": "eager"}, {"strategy": "eager"}]}"#, "at most 5 lanes"),
            ]
            for (body, reason) in cases {
                let response = try await harness.post("/api/labs", json: body)
                #expect(response.status == 400, "\(body)")
                #expect((response.json["error"] as? String)?.contains(reason) == true, "\(body): \(response.text)")
            }
            #expect(harness.application.web.context.labs.count == 0)
        }
    }

    @Test func pastTheCapTheAPIAnd503AndThePageSaysTheLabIsBusy() async throws {
        try await WebHarness.with(configure: { $0.web.maxLabs = 1 }) { harness in
            // Given one lab running, the most allowed
            let first = try await harness.post("/api/labs", json: #"{"lanes": [{"strategy": "visible"}]}"#)
            #expect(first.status == 201)
            // When another is asked for, then 503 with a reason and when to try again
            let second = try await harness.post("/api/labs", json: #"{"lanes": [{"strategy": "visible"}]}"#)
            #expect(second.status == 503)
            #expect((second.json["error"] as? String)?.contains("the lab is busy") == true)
            #expect(second.headers[.retryAfter] != nil)
            let page = try await harness.request(.GET, "/lab")
            #expect(page.status == 503)
            #expect(page.text.contains("The lab is busy") && page.text.contains("try again"))
            // When the first ends, a new one starts
            let lab = try #require(first.json["lab"] as? String)
            #expect(try await harness.request(.DELETE, "/api/labs/\(lab)").status == 204)
            #expect(try await harness.request(.GET, "/lab").status == 200)
            #expect(try await harness.post("/api/labs", json: #"{"lanes": [{"strategy": "visible"}]}"#).status == 201)
        }
    }

    @Test func aLabCountsAsANewViewerAgainstItsClientsLimit() async throws {
        try await WebHarness.with(configure: { $0.web.viewersPerMinute = 1 }) { harness in
            #expect(try await harness.post("/api/labs", json: #"{"lanes": [{"strategy": "visible"}]}"#).status == 201)
            let again = try await harness.post("/api/labs", json: #"{"lanes": [{"strategy": "visible"}]}"#)
            #expect(again.status == 429)
            #expect(again.headers[.retryAfter] != nil)
            #expect(harness.application.web.context.labs.count == 1)
        }
    }

    @Test func deleteEndsTheLabAndItsViewersAtOnce() async throws {
        try await WebHarness.with { harness in
            let created = try await harness.post("/api/labs", json: #"{"lanes": [{"strategy": "eager"}], "photos": 4}"#)
            let lab = try #require(created.json["lab"] as? String)
            let viewer = try #require((created.json["lanes"] as? [[String: Any]])?.first?["viewer"] as? String)
            #expect(try await harness.request(.DELETE, "/api/labs/\(lab)").status == 204)
            #expect(try await harness.request(.GET, "/api/labs/\(lab)").status == 404)
            #expect(try await harness.request(.DELETE, "/api/labs/\(lab)").status == 404)
            #expect(try await harness.request(.GET, "/events?viewer=\(viewer)").status == 404)
            #expect(harness.application.web.context.labs.count == 0)
        }
    }

    /// Open files and resident memory are read from the binary in `Tests/hostile/test_labs.py`,
    /// where no other suite shares the process.
    @Test func aLabWhosePageLeftIsTornDownAndItsPipelineFreed() async throws {
        // The lab ends 300 ms after its page left; connecting may take longer on a loaded machine.
        try await WebHarness.with(configure: { $0.web.labIdleTimeout = .milliseconds(300); $0.web.viewerConnectTimeout = .seconds(600) }) { harness in
            // Given a lab whose page read its stream, saw its rows done and left
            let pipeline = try await runLabToTheEnd(harness)
            // Then the lab ended by itself and its pipeline (its memory cache, its operations) is freed
            try await eventually("the lab's pipeline is freed") { pipeline.value == nil }
            #expect(harness.application.web.context.labs.count == 0)
        }
    }

    @Test func theListsViewerIsServedWhileFourLabsHoldTheirShareOfTransfers() async throws {
        // Given an origin whose first 8 photos are held at their headers and the other 4 answer at once
        let gate = OriginGate()
        let photo = Array(try JPEGEncoder.encode(SamplePhoto.make(seed: 2, width: 320, height: 213), quality: 80))
        var routes: [String: TestOrigin.Behaviour] = [:]
        for index in 0..<12 {
            routes["/p\(index).jpg"] = index < 8 ? .gated(bytes: photo, firstBytes: 100, gate: gate) : .body(bytes: photo)
        }
        let origin = try TestOrigin(routes: routes)
        defer { gate.openAll(); origin.stop() }
        let photos = Dictionary(uniqueKeysWithValues: (0..<12).map { (String(format: "p%02d", $0), "/p\($0).jpg") })
        try await WebHarness.with(origin: origin, photos: photos, configure: {
            $0.pipeline.maxConcurrentDownloads = 2
            // The labs' pages never open their streams: they must outlive the test, not end and give their permits back.
            $0.web.labIdleTimeout = .seconds(3_600)
            $0.web.viewerConnectTimeout = .seconds(3_600)
        }) { harness in
            // When four labs of two eager lanes each want the 8 held photos (a lane starts at its first report)
            for _ in 0..<4 {
                let lab = try await harness.post("/api/labs", json: #"{"lanes": [{"strategy": "eager"}, {"strategy": "eager"}], "photos": 8}"#)
                #expect(lab.status == 201)
                for lane in lab.json["lanes"] as? [[String: Any]] ?? [] {
                    try await harness.report(try #require(lane["viewer"] as? String), scrolling: false, rows: 0...3)
                }
            }
            let transfers = harness.application.web.context.labs.bounds.transfers
            try await eventually("the labs hold every permit guests may") { transfers.usage.byGuests == transfers.guestCapacity }

            // Then a viewer of the list still gets its rows, while the labs' transfers stay held
            let viewer = try await harness.newViewer()
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            _ = try await stream.next { $0.name == "snapshot" }
            try await harness.report(viewer, scrolling: false, rows: 8...11)
            try await stream.waitUntilFiltered(8...11)
            #expect(transfers.usage.byGuests == transfers.guestCapacity)
            #expect(transfers.usage.held <= transfers.capacity)
            #expect(harness.application.web.context.labs.count == 4)
        }
    }

    // MARK: Helpers

    /// Runs a visible lane until its first rows are done, then closes its stream; returns its pipeline, weakly.
    @discardableResult
    private func runLabToTheEnd(_ harness: WebHarness) async throws -> WeakPipeline {
        let created = try await harness.post("/api/labs", json: #"{"lanes": [{"strategy": "visible"}], "photos": 8}"#)
        let lab = try #require(created.json["lab"] as? String)
        let viewer = try #require((created.json["lanes"] as? [[String: Any]])?.first?["viewer"] as? String)
        let weak = WeakPipeline(harness.application.web.context.labs.lab(lab)?.lanes.first?.pipeline)
        do {
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            _ = try await stream.next { $0.name == "snapshot" }
            try await harness.report(viewer, scrolling: false, rows: 0...3)
            try await stream.waitUntilFiltered(0...3)
        }
        try await eventually("the lab ends once its page left") {
            try await harness.request(.GET, "/api/labs/\(lab)").status == 404
        }
        return weak
    }

    /// Waits until `condition` holds, checking every 20 ms; the deadline is only the failure bound.
    private func eventually(_ what: String, within limit: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw TestFailure("\(what): not within \(limit)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    final class WeakPipeline: @unchecked Sendable {
        weak var value: PhotoPipeline?
        init(_ value: PhotoPipeline?) { self.value = value }
    }
}
