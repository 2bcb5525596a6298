import Foundation
import HTTPTypes
@testable import PhotoWeb
import PhotoServer
import Testing

/// Issue 41, item 4, for labs: past a client's share, or at the server's cap, the lab whose page
/// left longest ago (every lane's stream gone) ends at once to make room; a lab whose page is
/// there is never ended for another. Clients are named by `X-Forwarded-For` from a trusted 127.0.0.1.
@Suite("A lab whose page left makes room", .serialized)
struct ClientSharesLabTests {
    private let lab = #"{"lanes": [{"strategy": "visible"}]}"#

    private func create(_ harness: WebHarness, from client: String) async throws -> TestResponse {
        try await harness.request(.POST, "/api/labs", headers: [.contentType: "application/json", .xForwardedFor: client], body: Data(lab.utf8))
    }

    /// Carries the lab's lane on a shared stream of its own, as its page does: the stream's reader.
    private func openPage(_ harness: WebHarness, of created: TestResponse) async throws -> EventStreamReader {
        let lanes = try #require(created.json["lanes"] as? [[String: Any]])
        let viewer = try #require(lanes.first?["viewer"] as? String)
        let reader = try await EventStreamReader(port: harness.application.port, target: "/events/shared")
        let stream = try #require(try await reader.next { $0.name == "stream" }.json["stream"] as? String)
        #expect(try await harness.post("/api/streams/\(stream)/viewers", json: #"{"viewer": "\#(viewer)"}"#).status == 204)
        return reader
    }

    private func labID(_ created: TestResponse) throws -> String {
        try #require(created.json["lab"] as? String)
    }

    /// Waits until lab `id`'s page is seen gone (its stream's close is noticed at its next write).
    private func waitUntilIdle(_ harness: WebHarness, _ id: String) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while harness.application.web.context.labs.lab(id)?.idleSince == nil {
            guard ContinuousClock.now < deadline else { throw TestFailure("lab \(id) not idle within 30 s") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test func pastItsShareAClientsLabWhosePageLeftMakesRoomAndAtTheCapAnyones() async throws {
        let configure: (inout ServerConfiguration) -> Void = {
            $0.web.trustedProxies = ["127.0.0.1"]
            $0.web.maxLabs = 2
            $0.web.labsPerClient = 1
            $0.web.heartbeatInterval = .milliseconds(200)
        }
        try await WebHarness.with(configure: configure) { harness in
            // Given a client's lab with its page open
            let first = try await create(harness, from: "203.0.113.1")
            #expect(first.status == 201)
            var page: EventStreamReader? = try await openPage(harness, of: first)

            // Then its page being there, the client's second lab is refused
            #expect(try await create(harness, from: "203.0.113.1").status == 429)
            #expect(harness.application.web.context.labs.lab(try labID(first)) != nil)

            // When the page leaves, the client's next lab takes that one's place at once
            page = nil
            try await waitUntilIdle(harness, try labID(first))
            let second = try await create(harness, from: "203.0.113.1")
            #expect(second.status == 201)
            #expect(try await harness.request(.GET, "/api/labs/\(try labID(first))").status == 404)

            // And at the server's cap, a third client gets 503 while every lab's page may still come...
            let other = try await create(harness, from: "203.0.113.2")
            #expect(other.status == 201)
            var otherPage: EventStreamReader? = try await openPage(harness, of: other)
            #expect(try await create(harness, from: "203.0.113.3").status == 503)
            // ...and a lab once its page left: the one that left ends, the one never opened stays
            otherPage = nil
            try await waitUntilIdle(harness, try labID(other))
            #expect(try await create(harness, from: "203.0.113.3").status == 201)
            #expect(harness.application.web.context.labs.lab(try labID(other)) == nil)
            #expect(harness.application.web.context.labs.lab(try labID(second)) != nil)
            withExtendedLifetime((page, otherPage)) {}
        }
    }
}
