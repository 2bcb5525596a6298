import Foundation
@testable import PhotoWeb
import PhotoPipeline
import Testing
import PhotoServer

@Suite("Costs that do not grow with the list", .serialized)
struct ListLengthTests {
    /// Runs `body` on a server whose list is `count` photos at a closed loopback port: nothing is
    /// fetched until a viewer asks, and what is asked for fails at once.
    static func withLongList(_ count: Int, _ body: (WebHarness) async throws -> Void) async throws {
        let source = NSTemporaryDirectory() + "classic-photos-long-list-\(UUID().uuidString).json"
        let list = Dictionary(uniqueKeysWithValues: (0..<count).map { (String(format: "p%06d", $0), "http://127.0.0.1:1/p\($0).jpg") })
        try JSONSerialization.data(withJSONObject: list).write(to: URL(fileURLWithPath: source))
        defer { try? FileManager.default.removeItem(atPath: source) }
        try await WebHarness.with(configure: { $0.source = source }, body)
    }

    @Test func aSnapshotCoversTheRowsNearTheViewportAndRowsComingNearArriveWithTheirNames() async throws {
        try await Self.withLongList(20_000) { harness in
            // Given a new viewer of a long list
            let viewer = try await harness.newViewer()
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")

            // Then its snapshot is the top of the list with the list's length and counts, not 20,000 rows
            let snapshot = try await stream.next { $0.name == "snapshot" }
            let photos = try #require(snapshot.json["photos"] as? [[String: Any]])
            #expect(photos.compactMap { $0["index"] as? Int } == Array(0...ViewerSession.interestMargin))
            #expect(snapshot.json["count"] as? Int == 20_000)
            #expect((snapshot.json["states"] as? [String: Int])?["new"] == 20_000)
            #expect(snapshot.data.utf8.count < 30_000)

            // When it reports rows far down the list, the rows around them arrive, named
            try await harness.report(viewer, scrolling: true, rows: 15_000...15_009)
            var waiting = Set(14_900...15_109)
            while !waiting.isEmpty {
                let event = try await stream.next { $0.name == "photo" && $0.json["name"] != nil }
                if let index = event.json["index"] as? Int, event.json["name"] as? String == String(format: "p%06d", index) {
                    waiting.remove(index)
                }
            }
        }
    }

    @Test func aReportOfMoreRowsThanAScreenHoldsIsRefusedWithTheReason() async throws {
        try await Self.withLongList(1_000) { harness in
            let viewer = try await harness.newViewer()
            let most = ViewportHandler.maxVisibleRows
            let refused = try await harness.post("/api/viewport", json: #"{"viewer": "\#(viewer)", "scrolling": true, "first": 0, "last": \#(most)}"#)
            #expect(refused.status == 422)
            #expect((refused.json["error"] as? String)?.contains("at most \(most) rows") == true, "\(refused.text)")
            try await harness.report(viewer, scrolling: true, rows: 0...(most - 1))
        }
    }

    @Test func anEagerPageAtALongListAsksForAWindowOfRows() async throws {
        try await Self.withLongList(50_000) { harness in
            // When a page asks for the eager strategy
            let page = try await harness.request(.GET, "/?strategy=eager")
            #expect(page.status == 200)

            // Then a window of rows is asked for, not 50,000
            let wanted = harness.application.web.context.viewers.all.compactMap { $0.existingController?.pendingRows.count }
            #expect(wanted.count == 1)
            #expect(wanted.allSatisfy { $0 <= harness.pipeline.eagerWindow })
        }
    }
}
