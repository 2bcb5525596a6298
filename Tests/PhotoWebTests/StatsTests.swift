import Foundation
@testable import PhotoWeb
import Testing
import PhotoPipeline
import PhotoServer

/// The server totals are one payload: the `stats` a tick sends, the snapshot's and `GET /api/stats`
/// carry the same fields, since the page replaces its totals whole with each event (a field the tick
/// left out, the database's status, took the page's banner away at the next tick).
@Suite("Server totals", .serialized)
struct StatsTests {
    @Test func aTicksStatsHaveEveryFieldOfTheSnapshotsAndTheAPIs() async throws {
        try await WebHarness.with { harness in
            // Given a viewer's stream and its snapshot's totals
            let viewer = try await harness.newViewer()
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            _ = try await stream.next { $0.name == "snapshot" }
            let snapshotStats = try await stream.next { $0.name == "stats" }

            // When work changes the totals, so that a tick sends them
            try await harness.report(viewer, scrolling: false, rows: 0...1)
            let ticked = try await stream.next { $0.name == "stats" && ($0.json["filtrations"] as? [String: Any])?["finished"] as? Int ?? 0 > 0 }
            let api = try await harness.request(.GET, "/api/stats")

            // Then all three have the same fields, the unsent event bytes among them
            let fields = Set(api.json.keys)
            #expect(fields.contains("unsentEventBytes"))
            #expect(Set(ticked.json.keys) == fields)
            #expect(Set(snapshotStats.json.keys) == fields)
        }
    }

    @Test func theUnsentBytesAloneSendNoStats() {
        // Given totals that differ only in the unsent event bytes (sending an event changes them)
        var before = EventPayloads.Stats(.init(), viewers: 1, configuration: .init())
        before.unsentEventBytes = 100
        var after = before
        after.unsentEventBytes = 400
        // Then no event is due; any other change is one, and so are the first totals
        #expect(!ServerTotals.changed(after, from: before))
        after.viewers = 2
        #expect(ServerTotals.changed(after, from: before))
        #expect(ServerTotals.changed(before, from: nil))
    }
}
