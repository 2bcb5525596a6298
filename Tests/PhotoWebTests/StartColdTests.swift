import Foundation
import HTTPTransfer
import HTTPTypes
import PhotoCodecs
import PhotoPipeline
import PhotoServer
@testable import PhotoWeb
import TestOrigin
import Testing

/// Issue 37: the presenter starts the demo cold for everyone, without a restart; only the presenter,
/// only while everyone else follows it, and never by a follow code.
@Suite("Start cold", .serialized, .timeLimit(.minutes(3)))
struct StartColdTests {
    static func startCold(_ code: String, as viewer: String, _ harness: WebHarness) async throws -> TestResponse {
        try await harness.post("/api/presentations/\(code)/cold-starts", json: #"{"viewer": "\#(viewer)"}"#)
    }

    @Test func aColdStartEmptiesTheCachesAndTheFollowersRowsStartOverFromTheOrigin() async throws {
        // Given a list of two photos: photo 0 served at once, photo 1 held half-way by its origin
        let held = OriginGate()
        held.open(.firstBytes)
        let photo = Array(try JPEGEncoder.encode(SamplePhoto.make(seed: 4, width: 640, height: 427), quality: 85))
        let second = Array(try JPEGEncoder.encode(SamplePhoto.make(seed: 5, width: 640, height: 427), quality: 85))
        let origin = try TestOrigin(routes: [
            "/p0.jpg": .body(contentType: "image/jpeg", bytes: photo),
            "/p1.jpg": .gated(bytes: second, firstBytes: second.count / 2, gate: held),
        ])
        let again = OriginGate()
        defer { held.openAll(); again.openAll(); origin.stop() }
        try await WebHarness.with(origin: origin, photos: ["p0": "/p0.jpg", "p1": "/p1.jpg"]) { harness in
            // And a presenter on both rows, followed by one viewer that has seen row 0 filtered
            let presenter = try await harness.newViewer()
            let code = try await PresentationTests.present(presenter, harness)
            let follower = try await harness.newViewer()
            #expect(try await harness.post("/api/presentations/\(code)/followers", json: #"{"viewer": "\#(follower)"}"#).status == 200)
            let events = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(follower)")
            try await harness.report(presenter, scrolling: false, rows: 0...1)
            try await events.waitUntilFiltered(0...0)
            try await origin.waitUntilRequested("/p1.jpg")
            let images = harness.cacheDirectory + "/images"

            // When the presenter starts cold, the origin now holding photo 0 as well
            origin.setRoute("/p0.jpg", .gated(bytes: photo, firstBytes: 0, gate: again))
            let started = try await Self.startCold(code, as: presenter, harness)

            // Then the disk cache is empty, and photo 1's transfer in flight was aborted
            #expect(started.status == 200, "\(started.text)")
            #expect(started.json["coldStarts"] as? Int == 1 && started.json["followers"] as? Int == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: images).isEmpty)
            #expect(try await origin.waitUntilServed("/p1.jpg").clientClosedEarly)
            // And the follower hears its row 0 leave `filtered` (back to new, or downloading again: the relay
            // folds a row's steps of one pace to the latest) and the presentation's first cold start
            var heard: Set<String> = []
            while heard.count < 2 {
                let event = try await events.next(where: { event in
                    (event.name == "photo" && event.json["index"] as? Int == 0
                        && ["new", "downloading"].contains(event.json["state"] as? String ?? ""))
                        || (event.name == "presentation" && event.json["coldStarts"] as? Int == 1)
                })
                heard.insert(event.name)
            }

            // And the presenter's row 0, still on its screen, is downloaded again from the origin and filtered again
            again.openAll()
            let fetched = try await origin.waitUntilServed("/p0.jpg", times: 2)
            #expect(!fetched.clientClosedEarly && fetched.bytesSent == photo.count)
            try await events.waitUntilFiltered(0...0)
        }
    }

    @Test func onlyThePresenterStartsColdAndOnlyWhileEveryoneElseFollows() async throws {
        try await WebHarness.with(photoCount: 12) { harness in
            // Given a presenter and another viewer looking at rows of its own, not following it
            let presenter = try await harness.newViewer()
            let code = try await PresentationTests.present(presenter, harness)
            let other = try await harness.newViewer()
            try await harness.report(other, scrolling: false, rows: 0...3)

            // Then the presenter is refused with the reason: the other would lose its work
            let refused = try await Self.startCold(code, as: presenter, harness)
            #expect(refused.status == 409)
            #expect(refused.text.contains("1 other viewer is looking at the list without following"), "\(refused.text)")

            // When the other follows, neither the follow code, the follower nor a stranger can start it cold
            #expect(try await harness.post("/api/presentations/\(code)/followers", json: #"{"viewer": "\#(other)"}"#).status == 200)
            #expect(try await Self.startCold(code, as: code, harness).status == 404)
            #expect(try await Self.startCold(code, as: other, harness).status == 404)
            #expect(try await Self.startCold(code, as: String(repeating: "a", count: 32), harness).status == 404)
            #expect(try await Self.startCold(String(repeating: "0", count: 32), as: presenter, harness).status == 404)

            // But the presenter can, once; a second at once is refused until the interval passed
            let started = try await Self.startCold(code, as: presenter, harness)
            #expect(started.status == 200, "\(started.text)")
            #expect(started.json["coldStarts"] as? Int == 1)
            let tooSoon = try await Self.startCold(code, as: presenter, harness)
            #expect(tooSoon.status == 429)
            #expect(Int(tooSoon.headers[.retryAfter] ?? "") ?? 0 > 0)
        }
    }
}
