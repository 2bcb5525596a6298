import Foundation
import PhotoPipeline
@testable import PhotoWeb
import Testing
import PhotoServer

/// Each viewer is told which operations were its own work, what they cost, and how much of that went
/// to rows it has not seen; a shared link's strategy and first screen are served with the page.
@Suite("Each viewer's own work", .serialized)
struct OwnWorkTests {
    /// Reads `stream` until `condition` holds for an event, which is returned with every `operation`
    /// event passed on the way.
    private static func operations(
        in stream: EventStreamReader, until condition: (EventStreamReader.Event) -> Bool
    ) async throws -> (operations: [[String: Any]], last: EventStreamReader.Event) {
        var operations: [[String: Any]] = []
        while let event = try await stream.next() {
            if event.name == "operation" { operations.append(event.json) }
            if condition(event) { return (operations, event) }
        }
        throw TestFailure("the stream ended")
    }

    /// Reads `stream` until every row in `rows` is filtered, by its snapshot or its photo events.
    private static func waitUntilFiltered(_ rows: ClosedRange<Int>, in stream: EventStreamReader) async throws {
        var waiting = Set(rows)
        func saw(_ photo: [String: Any]) {
            if (photo["state"] as? String) == "filtered", let index = photo["index"] as? Int { waiting.remove(index) }
        }
        while !waiting.isEmpty, let event = try await stream.next() {
            if event.name == "snapshot" { (event.json["photos"] as? [[String: Any]] ?? []).forEach(saw) }
            if event.name == "photo" { saw(event.json) }
        }
        if !waiting.isEmpty { throw TestFailure("rows \(waiting.sorted()) not filtered") }
    }

    private static func text(_ json: [String: Any], _ key: String) -> String {
        json[key] as? String ?? ""
    }

    private static func amount(_ event: EventStreamReader.Event, _ key: String) -> [String: Any] {
        event.json[key] as? [String: Any] ?? [:]
    }

    @Test func operationEventsSayWhoseWorkTheyWereAndQueuesCountEachViewersWorkAndWaste() async throws {
        try await WebHarness.with(configure: { $0.web.strategy = .prefetch(margin: 2) }) { harness in
            let reader = try await harness.newViewer()
            let bystander = try await harness.newViewer()
            let readerEvents = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(reader)")
            let bystanderEvents = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(bystander)")

            // Rows 0-1 on screen, 2-3 prefetched: four downloads and four filtrations for the reader.
            try await harness.report(reader, scrolling: false, rows: 0...1)
            // Read until a queues event counts the four filtrations and their four ends have come: the
            // ledger counts an operation as it ends, so a tick's queues event may come before its event.
            var counted: [[String: Any]] = []
            var fourDone: EventStreamReader.Event?
            while fourDone == nil || counted.filter({ Self.text($0, "queue") == "filtration" && Self.text($0, "outcome") == "finished" }).count < 4 {
                let (more, last) = try await Self.operations(in: readerEvents) { event in
                    event.name == "queues" || (event.name == "operation" && Self.text(event.json, "queue") == "filtration")
                }
                counted += more
                if last.name == "queues", (Self.amount(last, "work")["filtrations"] as? Int) == 4 { fourDone = last }
            }
            let queues = try #require(fourDone)
            var downloads: [[String: Any]] = [], filtrations: [[String: Any]] = []
            for operation in counted where Self.text(operation, "outcome") == "finished" {
                #expect((operation["mine"] as? Bool) == true)
                if Self.text(operation, "queue") == "download" {
                    downloads.append(operation)
                    #expect((operation["bytes"] as? Int ?? 0) > 0)
                } else {
                    filtrations.append(operation)
                    #expect(operation["cpuSeconds"] is Double && operation["bytes"] == nil)
                }
            }
            #expect(downloads.count == 4 && filtrations.count == 4)
            #expect(Set(downloads.compactMap { $0["index"] as? Int }) == [0, 1, 2, 3])

            // The queues event: all of it is the reader's work, the prefetched rows 2-3 its waste so far.
            let work = Self.amount(queues, "work"), waste = Self.amount(queues, "waste")
            let bytes = downloads.reduce(0) { $0 + ($1["bytes"] as? Int ?? 0) }
            #expect((work["downloads"] as? Int) == 4 && (work["bytes"] as? Int) == bytes)
            #expect((waste["downloads"] as? Int) == 2 && (waste["filtrations"] as? Int) == 2)
            #expect((waste["bytes"] as? Int ?? 0) > 0 && (waste["bytes"] as? Int ?? 0) < bytes)

            // Once rows 2-3 come on screen, that work was not waste (the viewer switches to the visible
            // strategy on the way, so that nothing new is read ahead of them).
            let moved = try await harness.post("/api/viewport", json: #"{"viewer": "\#(reader)", "scrolling": false, "first": 2, "last": 3, "strategy": "visible"}"#)
            #expect(moved.status == 204)
            let later = try await readerEvents.next { event in
                event.name == "queues" && (Self.amount(event, "waste")["downloads"] as? Int) == 0
            }
            #expect((Self.amount(later, "waste")["bytes"] as? Int) == 0 && (Self.amount(later, "work")["bytes"] as? Int) == bytes)

            // The bystander saw the same operations, none of them its own, and did no work.
            let seen = try await Self.operations(in: bystanderEvents) { event in
                event.name == "photo" && (event.json["index"] as? Int) == 3 && (event.json["state"] as? String) == "filtered"
            }.operations
            #expect(seen.count >= 8 && seen.allSatisfy { ($0["mine"] as? Bool) == false })
            let bystanderQueues = harness.application.web.context.viewers.session(.init(bystander))?.currentQueues()
            #expect(bystanderQueues?.work == ViewerWork.Amount())
        }
    }

    @Test func aSharedLinksStrategyMakesTheViewerAndItsFirstScreenIsPreloaded() async throws {
        try await WebHarness.with(configure: { $0.web.strategy = .prefetch(margin: 3) }) { harness in
            let page = try await harness.request(.GET, "/?strategy=eager")
            let viewer = try #require(page.text.firstMatch(of: /data-viewer="([0-9a-f-]+)"/)?.1)
            let session = try #require(harness.application.web.context.viewers.session(.init(String(viewer))))
            #expect(session.existingController?.strategy == .eager)
            // A value the API would refuse opens the page on the server's default.
            let typo = try await harness.request(.GET, "/?strategy=fastest&prefetch=2")
            #expect(typo.status == 200)
            let other = try #require(typo.text.firstMatch(of: /data-viewer="([0-9a-f-]+)"/)?.1)
            #expect(harness.application.web.context.viewers.session(.init(String(other)))?.existingController?.strategy == .prefetch(margin: 3))

            // The eager viewer has every row done: the first screen's thumbnails are preloaded with the page.
            let events = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            try await Self.waitUntilFiltered(0...11, in: events)
            let top = try await harness.request(.GET, "/")
            #expect(top.text.contains(#"<link rel="preload" as="image" fetchpriority="high" href="/photos/0/thumbnail">"#))
            let screen = FirstScreen.rowCount
            #expect(top.text.contains(#"href="/photos/\#(screen - 1)/thumbnail""#) && !top.text.contains(#"href="/photos/\#(screen)/thumbnail""#))
            // And its rows are in the page, thumbnails and all, before any script runs.
            #expect(top.text.contains(#"id="row-0""#) && top.text.contains(#"src="/photos/0/thumbnail""#))
            let lower = try await harness.request(.GET, "/?row=2")
            #expect(!lower.text.contains(#"href="/photos/0/thumbnail""#) && lower.text.contains(#"href="/photos/1/thumbnail""#))
        }
    }
}
