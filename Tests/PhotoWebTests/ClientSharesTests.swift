import Foundation
import HTTPTypes
@testable import PhotoWeb
import PhotoServer
import PhotoPipeline
import Testing
@testable import PhotoTransport

/// Issue 41, item 4: one client (an IPv4 address, an IPv6 /64) holds at most its share of viewers,
/// labs and shared event streams, its own viewer whose stream went away longest ago making room
/// first; the per-minute limit counts a /64 as one client. Clients are named by `X-Forwarded-For` from a trusted 127.0.0.1.
@Suite("One client holds its share, not the server", .serialized)
struct ClientSharesTests {
    private static func trusting(_ configuration: inout ServerConfiguration) {
        configuration.web.trustedProxies = ["127.0.0.1"]
    }

    private func newViewer(_ harness: WebHarness, from client: String) async throws -> TestResponse {
        try await harness.request(.POST, "/api/viewers", headers: [.xForwardedFor: client])
    }

    @Test func aClientHoldsItsShareOfViewersAndAnIPv6SlashSixtyFourIsOneClient() async throws {
        try await WebHarness.with(configure: { Self.trusting(&$0); $0.web.viewersPerClient = 3 }) { harness in
            // Three viewers from three addresses of one /64
            for host in 1...3 { #expect(try await newViewer(harness, from: "2001:db8:1:2::\(host)").status == 201) }
            // Then a fourth address of that /64 is the same client: none of its viewers is idle, so 429
            let refused = try await newViewer(harness, from: "2001:db8:1:2:ffff::9")
            #expect(refused.status == 429)
            #expect(refused.text.contains("2001:db8:1:2::/64"), "\(refused.text)")
            // And another /64, and an IPv4 client, are served
            #expect(try await newViewer(harness, from: "2001:db8:1:3::1").status == 201)
            #expect(try await newViewer(harness, from: "192.0.2.7").status == 201)
        }
    }

    @Test func pastItsShareAClientsViewerWhoseStreamWentAwayLongestAgoMakesRoom() async throws {
        // A closed stream is seen at a write after it (with 15 s heartbeats that took 15-30 s, past the wait below)
        let configure: (inout ServerConfiguration) -> Void = {
            Self.trusting(&$0)
            $0.web.viewersPerClient = 2
            $0.web.heartbeatInterval = .milliseconds(200)
        }
        try await WebHarness.with(configure: configure) { harness in
            let client = "198.51.100.4"
            let first = try #require(try await newViewer(harness, from: client).json["viewer"] as? String)
            let second = try #require(try await newViewer(harness, from: client).json["viewer"] as? String)
            // Given the first viewer's stream opened and went away
            do {
                let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(first)")
                _ = try await stream.next { $0.name == "snapshot" }
            }
            let viewers = harness.application.web.context.viewers
            try await waitUntil { viewers.session(ViewerID(first))?.outbox.detachedSince != nil }

            // When the client asks for a third
            let third = try await newViewer(harness, from: client)

            // Then it is served, in place of the first; the second (never idle) stays
            #expect(third.status == 201)
            #expect(viewers.session(ViewerID(first)) == nil)
            #expect(viewers.session(ViewerID(second)) != nil)
            #expect(viewers.places.count(client) == 2)
        }
    }

    @Test func aClientRunsItsShareOfLabsAndTheOthersTheirs() async throws {
        try await WebHarness.with(configure: { Self.trusting(&$0); $0.web.maxLabs = 4; $0.web.labsPerClient = 1 }) { harness in
            let lab = #"{"lanes": [{"strategy": "visible"}]}"#
            func create(from client: String) async throws -> TestResponse {
                try await harness.request(
                    .POST, "/api/labs", headers: [.contentType: "application/json", .xForwardedFor: client], body: Data(lab.utf8))
            }
            let first = try await create(from: "203.0.113.1")
            #expect(first.status == 201)
            #expect(try await create(from: "203.0.113.1").status == 429)
            #expect(try await create(from: "203.0.113.2").status == 201)
            // A lab that ends gives its client's place back
            let id = try #require(first.json["lab"] as? String)
            #expect(try await harness.request(.DELETE, "/api/labs/\(id)").status == 204)
            #expect(try await create(from: "203.0.113.1").status == 201)
        }
    }

    @Test func aClientHoldsItsShareOfSharedStreamsItsOldestIdleMakesRoomAndAnEndedOneGivesItsPlaceBack() async throws {
        // A closed stream is seen at its next write: heartbeats make that soon.
        let configure: (inout ServerConfiguration) -> Void = {
            Self.trusting(&$0)
            $0.web.sharedStreamsPerClient = 2
            $0.web.heartbeatInterval = .milliseconds(200)
        }
        try await WebHarness.with(configure: configure) { harness in
            let port = harness.application.port
            func open(from client: String) async throws -> (reader: EventStreamReader, id: String) {
                let reader = try await EventStreamReader(port: port, target: "/events/shared", headers: ["X-Forwarded-For": client])
                #expect(reader.status == 200)
                let opened = try await reader.next { $0.name == "stream" }
                return (reader, try #require(opened.json["stream"] as? String))
            }
            func carryAViewer(on stream: String, from client: String) async throws {
                let viewer = try #require(try await newViewer(harness, from: client).json["viewer"] as? String)
                let joined = try await harness.post("/api/streams/\(stream)/viewers", json: #"{"viewer": "\#(viewer)"}"#)
                #expect(joined.status == 204)
            }
            // Given two streams open from two addresses of one /64, the first carrying a viewer
            let carrying = try await open(from: "2001:db8:5:6::1")
            try await carryAViewer(on: carrying.id, from: "2001:db8:5:6::1")
            let idle = try await open(from: "2001:db8:5:6::2")

            // When a third opens from that /64, the one carrying nobody is closed to make room
            var third: (reader: EventStreamReader, id: String)? = try await open(from: "2001:db8:5:6:ffff::3")
            while try await idle.reader.next(timeout: .seconds(30)) != nil {}
            let streams = harness.application.web.context.viewers.streams
            #expect(throws: SharedStreamError.self) { try streams.stream(idle.id) }
            #expect(try streams.stream(carrying.id).viewers.count == 1)

            // Then with each of its streams carrying a viewer, one more is refused, saying why; another client is served
            try await carryAViewer(on: try #require(third).id, from: "2001:db8:5:6::1")
            let refused = try await harness.request(.GET, "/events/shared", headers: [.xForwardedFor: "2001:db8:5:6::4"])
            #expect(refused.status == 429)
            #expect(refused.text.contains("2001:db8:5:6::/64 holds 2 shared event streams"), "\(refused.text)")
            let other = try await open(from: "192.0.2.9")

            // And when one of its streams ends, the client may open one again
            let places = streams.places
            third = nil
            try await waitUntil { places.count("2001:db8:5:6::/64") == 1 }
            let again = try await open(from: "2001:db8:5:6::4")
            #expect(places.count("2001:db8:5:6::/64") == 2)
            #expect(places.count("192.0.2.9") == 1)
            withExtendedLifetime((carrying, other, again)) {}
        }
    }

    @Test func theNewViewersPerMinuteCountASlashSixtyFourAsOneClient() async throws {
        try await WebHarness.with(configure: { Self.trusting(&$0); $0.web.viewersPerMinute = 2 }) { (harness: WebHarness) async throws in
            #expect(try await newViewer(harness, from: "2001:db8:aa:1::1").status == 201)
            #expect(try await newViewer(harness, from: "2001:db8:aa:1::2").status == 201)
            #expect(try await newViewer(harness, from: "2001:db8:aa:1:1234::3").status == 429)
            #expect(try await newViewer(harness, from: "2001:db8:aa:2::1").status == 201)
        }
    }

    @Test func aHeldPlaceIsGivenBackOnceWhetherReleasedOrDropped() throws {
        let places = ClientPlaces("shared event streams", perClient: 2)
        let released = try ClientPlaceHold(places, for: "192.0.2.1")
        do {
            // A response dropped before its body ran gives its place back with it
            _ = try ClientPlaceHold(places, for: "192.0.2.1")
        }
        #expect(places.count("192.0.2.1") == 1)
        // Released, then dropped: given back once, so another hold of the client's stays counted
        let other = try ClientPlaceHold(places, for: "192.0.2.1")
        released.release()
        released.release()
        #expect(places.count("192.0.2.1") == 1)
        #expect(throws: Never.self) { _ = try ClientPlaceHold(places, for: "192.0.2.1") }
        withExtendedLifetime(other) {}
    }

    @Test func groupsAreIPv4AddressesAndIPv6SlashSixtyFours() {
        #expect(ClientAddress.group("192.0.2.1") == "192.0.2.1")
        #expect(ClientAddress.group("2001:db8:1:2:3:4:5:6") == "2001:db8:1:2::/64")
        #expect(ClientAddress.group("2001:DB8:0:0::1") == "2001:db8:0:0::/64")
        #expect(ClientAddress.group("unknown") == "unknown")
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestFailure("condition not met within 30 s") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
