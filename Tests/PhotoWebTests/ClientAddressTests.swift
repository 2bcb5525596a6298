import Foundation
import NIOCore
@testable import PhotoWeb
import Testing
@testable import PhotoTransport

@Suite("Client addresses and the viewer rate limit")
struct ClientAddressTests {
    @Test func onlyATrustedPeerNamesTheClientAndOnlyItsLastHopCounts() throws {
        let trusted = try ClientAddress.TrustedProxies(["10.0.0.0/8", "::1"])
        let proxy = try SocketAddress(ipAddress: "10.1.2.3", port: 1)
        let stranger = try SocketAddress(ipAddress: "192.0.2.1", port: 1)
        #expect(ClientAddress.of(peer: proxy, forwardedFor: "1.1.1.1, 203.0.113.9", trusted: trusted) == "203.0.113.9")
        #expect(ClientAddress.of(peer: stranger, forwardedFor: "203.0.113.9", trusted: trusted) == "192.0.2.1")
        #expect(ClientAddress.of(peer: proxy, forwardedFor: "not an address", trusted: trusted) == "10.1.2.3")
        #expect(ClientAddress.of(peer: try SocketAddress(ipAddress: "::1", port: 1), forwardedFor: "2001:db8::1", trusted: trusted) == "2001:db8::1")
        #expect(ClientAddress.of(peer: try SocketAddress(ipAddress: "::ffff:192.0.2.1", port: 1), forwardedFor: nil, trusted: trusted) == "192.0.2.1")
        #expect(throws: ConfigurationError.self) { try ClientAddress.TrustedProxies(["edge"]) }
        #expect(throws: ConfigurationError.self) { try ClientAddress.TrustedProxies(["10.0.0.0/33"]) }
    }

    @Test func eachClientHasItsOwnAllowanceRefilledOverTime() {
        let limiter = ClientRateLimiter(perMinute: 2)
        let start = ContinuousClock.now
        #expect(limiter.admit("a", now: start) == nil)
        #expect(limiter.admit("a", now: start) == nil)
        #expect(limiter.admit("a", now: start) == 30)
        #expect(limiter.admit("b", now: start) == nil)
        #expect(limiter.admit("a", now: start + .seconds(30)) == nil)
    }

    @Test func aViewerThatNeverConnectsIsForgottenSoonerThanOneWhoseStreamWentAway() {
        let registry = TestViewers(maxViewers: 2, idleTimeout: .seconds(30), connectTimeout: .seconds(5))
        let never = registry.create()!
        let connected = registry.create()!
        let generation = connected.outbox.attach(lastEventID: nil) { [] }
        connected.outbox.detach(generation: generation)
        let dropped = registry.dropIdle(now: .now + .seconds(6))
        #expect(dropped.map(\.id) == [never.id])
        #expect(registry.session(connected.id) != nil)
    }
}
