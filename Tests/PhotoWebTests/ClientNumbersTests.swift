import Foundation
@testable import PhotoWeb
import Testing
import PhotoServer

/// Numbers a client sends are bounded before any arithmetic: the extremes are answered, never trapped on.
@Suite("Numbers from clients")
struct ClientNumbersTests {
    @Test(arguments: ["-9223372036854775808", "9223372036854775807", "0", "-1", "99999999999999999999", "x"])
    func anyRowOfTheFirstScreenIsWithinTheList(row: String) {
        let rows = FirstScreen.indices(from: row, count: 30)
        #expect(rows.lowerBound >= 0 && rows.upperBound <= 30 && !rows.isEmpty)
    }

    @Test func theFirstScreensRowIsOneBasedAndClamped() {
        #expect(FirstScreen.indices(from: "11", count: 30) == 10..<20)
        #expect(FirstScreen.indices(from: "-9223372036854775808", count: 30) == 0..<10)
        #expect(FirstScreen.indices(from: "9223372036854775807", count: 30) == 29..<30)
    }

    @Test func aReconnectFromTheLastPossibleEventIDGetsASnapshot() async {
        // Given a stream that has sent events
        let outbox = EventOutbox()
        let first = outbox.attach(lastEventID: nil) { [] }
        outbox.enqueue(.init(name: .operation, data: Data("{}".utf8)))
        _ = await outbox.next(generation: first)
        outbox.detach(generation: first)

        // When it reconnects claiming the largest event id there is (never issued)
        let next = outbox.attach(lastEventID: .max) { [.init(name: .snapshot, data: Data("{}".utf8))] }

        // Then it starts again from a snapshot
        guard case .events(let events) = await outbox.next(generation: next) else {
            Issue.record("expected the snapshot")
            return
        }
        #expect(events.map(\.name) == [.snapshot])
    }

    @Test func theExtremesOverHTTPAreAnsweredAndTheServerServesOn() async throws {
        try await WebHarness.with(photoCount: 12) { harness in
            // A page at the smallest row there is, by GET and by HEAD
            #expect(try await harness.request(.GET, "/?row=-9223372036854775808").status == 200)
            #expect(try await harness.request(.HEAD, "/?row=-9223372036854775808").status == 200)

            // A viewer's stream, then a reconnect with the largest Last-Event-ID, by header and by query
            let viewer = try await harness.newViewer()
            let port = harness.application.port
            for target in ["/events?viewer=\(viewer)", "/events?viewer=\(viewer)&lastEventId=18446744073709551615"] {
                let stream = try await EventStreamReader(
                    port: port, target: target, headers: target.contains("lastEventId") ? [:] : ["Last-Event-ID": "18446744073709551615"])
                #expect(stream.status == 200)
                let snapshot = try await stream.next(where: { $0.name == "snapshot" })
                #expect(snapshot.json["photos"] != nil)
            }

            // Then the server is still there for everyone
            #expect(try await harness.request(.GET, "/healthz").status == 200)
        }
    }
}
