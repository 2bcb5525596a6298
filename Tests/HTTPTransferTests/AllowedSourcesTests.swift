import Foundation
import HTTPTransfer
import Testing
import TestOrigin

@Suite("AllowedSources: outbound requests only to allowed addresses", .timeLimit(.minutes(1)))
struct AllowedSourcesTests {
    @Test("a loopback origin is refused by default, before any request reaches it, and the error says why")
    func loopbackRefusedByDefault() async throws {
        let origin = try TestOrigin(routes: ["/secret": .body(bytes: Array("INTERNAL-SECRET".utf8))])
        defer { origin.stop() }
        try await withLoop("test-refused-loopback") { (loop) async throws in

            let error = await #expect(throws: TransferError.self) { try await loop.fetch(origin.url("/secret")) }

            guard case .addressRefused(let url, let reason) = error else {
                Issue.record("expected addressRefused, got \(String(describing: error))")
                return
            }
            #expect(url == origin.url("/secret"))
            #expect(reason == "127.0.0.1:\(origin.port) is a loopback address, not an allowed source")
            #expect(error?.description.contains("loopback") == true)
            #expect(origin.requestCount("/secret") == 0)
        }
    }

    @Test("a name is checked by the address it resolves to: localhost is refused though it is no address")
    func nameCheckedByItsAddress() async throws {
        let origin = try TestOrigin(routes: ["/a": .body(bytes: [1, 2, 3])])
        defer { origin.stop() }
        try await withLoop("test-refused-name") { (loop) async throws in

            await #expect(throws: TransferError.self) {
                try await loop.fetch("http://localhost:\(origin.port)/a")
            }
            #expect(origin.requestCount("/a") == 0)
        }
    }

    @Test("an allowed origin's redirect to a loopback port that is not allowed is refused at that hop")
    func redirectToDisallowedPortRefused() async throws {
        let inside = try TestOrigin(routes: ["/secret.jpg": .body(bytes: Array(#"{"AccessKeyId": "INTERNAL-SECRET"}"#.utf8))])
        defer { inside.stop() }
        let outside = try TestOrigin(routes: ["/photo.jpg": .redirect(location: inside.url("/secret.jpg"))])
        defer { outside.stop() }
        let limits = TransferLimits(allowedSources: AllowedSources(entries: [try #require(.init("127.0.0.1:\(outside.port)"))]))
        try await withLoop("test-refused-redirect") { (loop) async throws in

            await #expect(throws: TransferError.addressRefused(
                url: inside.url("/secret.jpg"), reason: "127.0.0.1:\(inside.port) is a loopback address, not an allowed source")
            ) {
                try await loop.fetch(outside.url("/photo.jpg"), limits: limits)
            }
            #expect(outside.requestCount("/photo.jpg") == 1)
            #expect(inside.requestCount("/secret.jpg") == 0)
        }
    }

    @Test("a redirect to an origin that is allowed too is followed")
    func redirectToAllowedFollowed() async throws {
        let target = try TestOrigin(routes: ["/b": .body(bytes: [4, 5, 6])])
        defer { target.stop() }
        let first = try TestOrigin(routes: ["/a": .redirect(location: target.url("/b"))])
        defer { first.stop() }
        let limits = TransferLimits(allowedSources: try AllowedSources(parsing: ["127.0.0.1:\(first.port)", "127.0.0.1:\(target.port)"]))
        try await withLoop("test-allowed-redirect") { (loop) async throws in

            #expect(try await loop.fetch(first.url("/a"), limits: limits) == Data([4, 5, 6]))
        }
    }

    @Test("a host name entry allows that name, not another name or the bare address on the same port")
    func nameEntryMatchesTheURLsHost() async throws {
        let origin = try TestOrigin(routes: ["/a": .body(bytes: [7])])
        defer { origin.stop() }
        let limits = TransferLimits(allowedSources: try AllowedSources(parsing: ["localhost:\(origin.port)"]))
        try await withLoop("test-name-entry") { (loop) async throws in

            #expect(try await loop.fetch("http://localhost:\(origin.port)/a", limits: limits) == Data([7]))
            await #expect(throws: TransferError.self) { try await loop.fetch(origin.url("/a"), limits: limits) }
            #expect(origin.requestCount("/a") == 1)
        }
    }

    @Test("addresses are sorted into public and the non-public kinds",
          arguments: [
            ("8.8.8.8", nil), ("2606:4700::1", nil), ("127.0.0.1", "loopback"), ("127.9.9.9", "loopback"), ("::1", "loopback"),
            ("::ffff:127.0.0.1", "loopback"), ("10.1.2.3", "private"), ("172.31.255.255", "private"), ("172.32.0.1", nil),
            ("192.168.1.1", "private"), ("fd12::1", "private"), ("169.254.169.254", "link-local"), ("fe80::1", "link-local"),
            ("0.0.0.0", "non-public"), ("100.64.0.1", "non-public"), ("224.0.0.1", "non-public"), ("::", "non-public"),
            ("64:ff9b::a9fe:a9fe", "link-local"),
          ] as [(String, String?)])
    func scopes(address: String, scope: String?) throws {
        #expect(try #require(IPAddress(address)).nonPublicScope?.rawValue == scope)
    }

    @Test("entries parse hosts, addresses, prefixes and ports, and refuse the rest")
    func entries() throws {
        for good in ["127.0.0.1", "127.0.0.1:8080", "10.0.0.0/8", "[::1]:443", "::1", "fd00::/8", "[fd00::/8]:80", "Photos.Example:81", "localhost"] {
            #expect(AllowedSources.Entry(good) != nil, "\(good)")
        }
        for bad in ["", "a b", "host:0", "host:70000", "10.0.0.0/33", "[::1]x", "http://host", "host:port"] {
            #expect(AllowedSources.Entry(bad) == nil, "\(bad)")
        }
        #expect(throws: MalformedSource.self) { try AllowedSources(parsing: ["ok", "not ok"]) }
        let prefix = try #require(AllowedSources.Entry("10.0.0.0/8:9000"))
        let sources = AllowedSources(entries: [prefix])
        #expect(sources.refusal(host: "x", address: try #require(IPAddress("10.9.9.9")), port: 9000) == nil)
        #expect(sources.refusal(host: "x", address: try #require(IPAddress("10.9.9.9")), port: 9001) != nil)
        #expect(sources.refusal(host: "x", address: try #require(IPAddress("11.0.0.1")), port: 1) == nil)
    }
}
