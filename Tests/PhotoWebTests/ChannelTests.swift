import Foundation
import PhotoPipeline
import PhotoServer
@testable import PhotoWeb
import Testing

/// The list and each lab lane are channels on one path: one viewer registry, each viewer in its
/// channel, each channel's events, totals and photos its own.
@Suite("Channels: the list and the lab lanes on one path", .serialized)
struct ChannelTests {
    @Test func aLanesEventsTotalsAndPhotosAreItsOwnAndTheListsAreTheLists() async throws {
        try await WebHarness.with(configure: { $0.web.viewerConnectTimeout = .seconds(600); $0.web.labIdleTimeout = .seconds(600) }) { harness in
            // Given a viewer of the list, its stream open
            let listViewer = try await harness.newViewer()
            let list = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(listViewer)")
            _ = try await list.next { $0.name == "snapshot" }
            // And a lab of two lanes over 8 photos, its first lane's stream open
            let created = try await harness.post("/api/labs", json: #"{"lanes": [{"strategy": "visible"}, {"strategy": "eager"}], "photos": 8}"#)
            #expect(created.status == 201)
            let laneViewer = try #require((created.json["lanes"] as? [[String: Any]])?.first?["viewer"] as? String)
            let lane = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(laneViewer)")

            // Then the lane's snapshot is of its own list and its totals count its one viewer,
            // and the list's totals count the list's viewer only
            let snapshot = try await lane.next { $0.name == "snapshot" }
            #expect(snapshot.json["count"] as? Int == 8)
            let laneStats = try await lane.next { $0.name == "stats" }
            #expect(laneStats.json["viewers"] as? Int == 1)
            #expect(try await harness.request(.GET, "/api/stats").json["viewers"] as? Int == 1)

            // When the lane's viewer stops on rows 0...3 and they are done
            try await harness.report(laneViewer, scrolling: false, rows: 0...3)
            try await lane.waitUntilFiltered(0...3)
            // Then its photos are its pipeline's: served with its viewer, not by the list, which made none
            #expect(try await harness.request(.GET, "/photos/0/thumbnail?viewer=\(laneViewer)").status == 200)
            #expect(try await harness.request(.GET, "/photos/0/thumbnail").status != 200)
            #expect(harness.pipeline.stats.bytesDownloaded == 0)

            // And the list's viewer heard none of the lane's events: everything queued for it before
            // a marker it asks for now (its tab hidden, choosing eager: a queues event saying eager)
            let marker = try await harness.post("/api/viewport", json: #"{"viewer": "\#(listViewer)", "hidden": true, "strategy": "eager"}"#)
            #expect(marker.status == 204)
            var heard: [String] = []
            _ = try await list.next { event in
                if event.name == "photo" || event.name == "operation" { heard.append("\(event.name) \(event.data)") }
                return event.name == "queues" && event.json["strategy"] as? String == "eager"
            }
            #expect(heard.count == 0, "the list's viewer heard the lane's events: \(heard.prefix(3))")
        }
    }
}
