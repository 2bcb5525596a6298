import Foundation
import HTTPTransfer
import Testing
import TestOrigin

@Suite("TransferLimits: timeouts, sizes, redirects", .timeLimit(.minutes(1)))
struct TransferLimitsTests {
    @Test("a port that never accepts fails with .connectTimeout")
    func connectTimeout() async throws {
        let listener = try UnresponsiveListener()
        try await withLoop("test-connect-timeout") { (loop) async throws in

            await #expect(throws: TransferError.connectTimeout(.milliseconds(300))) {
                try await loop.fetch(listener.url("/"), limits: .init(connectTimeout: .milliseconds(300), allowedSources: .loopback))
            }
        }
    }

    @Test("a total timeout that ends while connecting is .timedOut, not .connectTimeout")
    func totalTimeoutWhileConnecting() async throws {
        let listener = try UnresponsiveListener()
        try await withLoop("test-total-connect") { (loop) async throws in

            await #expect(throws: TransferError.timedOut(.milliseconds(200))) {
                try await loop.fetch(listener.url("/"), limits: .init(connectTimeout: .seconds(10), totalTimeout: .milliseconds(200), allowedSources: .loopback))
            }
        }
    }

    @Test("a transfer stuck under lowSpeedLimit fails with .stalled")
    func stalled() async throws {
        // No body bytes at all: libcurl averages speed over about 5 s, so even a few early bytes
        // would put the verdict off by that much.
        let origin = try TestOrigin(routes: ["/stuck": .stall(declaredLength: 100_000, sendFirst: 0)])
        defer { origin.stop() }
        try await withLoop("test-stalled") { (loop) async throws in

            await #expect(throws: TransferError.stalled(.seconds(1))) {
                try await loop.fetch(origin.url("/stuck"), limits: .init(lowSpeedTime: .seconds(1), allowedSources: .loopback))
            }
        }
    }

    @Test("a transfer over totalTimeout fails with .timedOut")
    func totalTimeout() async throws {
        let origin = try TestOrigin(routes: [
            // Bytes keep arriving at first, then the origin holds the rest for good.
            "/slow": .gated(bytes: pattern(100_000), firstBytes: 1000, gate: { let gate = OriginGate(); gate.open(.firstBytes); return gate }()),
        ])
        defer { origin.stop() }
        try await withLoop("test-total-timeout") { (loop) async throws in

            await #expect(throws: TransferError.timedOut(.milliseconds(300))) {
                try await loop.fetch(origin.url("/slow"), limits: .init(totalTimeout: .milliseconds(300), allowedSources: .loopback))
            }
        }
    }

    @Test("a body over maxBodyBytes fails, whether or not its length is declared", arguments: [true, false])
    func bodyTooLarge(declared: Bool) async throws {
        let bytes = pattern(64 * 1024)
        let origin = try TestOrigin(routes: ["/big": declared ? .body(bytes: bytes) : .noContentLength(bytes: bytes)])
        defer { origin.stop() }
        try await withLoop("test-too-large") { (loop) async throws in

            await #expect(throws: TransferError.bodyTooLarge(limit: 16 * 1024)) {
                try await loop.fetch(origin.url("/big"), limits: .init(maxBodyBytes: 16 * 1024, allowedSources: .loopback))
            }
        }
    }

    @Test("a body of exactly maxBodyBytes is accepted")
    func bodyAtLimit() async throws {
        let bytes = pattern(16 * 1024)
        let origin = try TestOrigin(routes: ["/exact": .noContentLength(bytes: bytes)])
        defer { origin.stop() }
        try await withLoop("test-at-limit") { (loop) async throws in

            #expect(try await loop.fetch(origin.url("/exact"), limits: .init(maxBodyBytes: bytes.count, allowedSources: .loopback)) == Data(bytes))
        }
    }

    @Test("a redirect loop stops after maxRedirects")
    func redirectLoop() async throws {
        let origin = try TestOrigin(routes: [
            "/a": .redirect(location: "/b"),
            "/b": .redirect(status: 301, location: "/a"),
        ])
        defer { origin.stop() }
        try await withLoop("test-redirect-loop") { (loop) async throws in

            await #expect(throws: TransferError.tooManyRedirects(limit: 5)) {
                try await loop.fetch(origin.url("/a"), limits: .onLoopback)
            }
            #expect(origin.requestCount("/a") + origin.requestCount("/b") == 6)
        }
    }

    @Test("a redirect followed to its target", arguments: [0, 1, 5])
    func redirectFollowed(maxRedirects: Int) async throws {
        let bytes = pattern(1000)
        let origin = try TestOrigin(routes: ["/old": .redirect(status: 301, location: "/new"), "/new": .body(bytes: bytes)])
        defer { origin.stop() }
        try await withLoop("test-redirect") { (loop) async throws in

            var transfer = ObservedTransfer(loop, origin.url("/old"), limits: .init(maxRedirects: maxRedirects, allowedSources: .loopback))
            let outcome = await transfer.completion().result
            #expect(outcome == (maxRedirects == 0 ? .failure(.tooManyRedirects(limit: 0)) : .success(Data(bytes))))
        }
    }
}

@Suite("TransferLimits: a dripping origin", .timeLimit(.minutes(1)))
struct DripTests {
    @Test("an origin dripping 2 bytes a second fails as too slow once the stall time has passed, and the connection is closed")
    func drippingOriginTooSlow() async throws {
        let origin = try TestOrigin(routes: ["/drip": .drip(declaredLength: 1_000_000, interval: .milliseconds(500))])
        defer { origin.stop() }
        try await withLoop("test-drip") { (loop) async throws in
            let limits = TransferLimits(lowSpeedTime: .seconds(1), minimumAverageSpeed: 1000, allowedSources: .loopback)
            let started = ContinuousClock.now

            let error = await #expect(throws: TransferError.self) { try await loop.fetch(origin.url("/drip"), limits: limits) }

            guard case .tooSlow(let average, let minimum) = error else {
                Issue.record("expected tooSlow, got \(String(describing: error))")
                return
            }
            #expect(minimum == 1000 && average < 10)
            // Without the check it would go on for days: the bound is the stall time plus libcurl's
            // once-a-second progress call, with room for a loaded machine.
            #expect(ContinuousClock.now - started < .seconds(20))
            let served = try await origin.waitUntilServed("/drip")
            #expect(served.clientClosedEarly)
            #expect(loop.activeTransfers == 0)
        }
    }

    @Test("the defaults bound every transfer: 500 bytes/s on average and 600 s in all")
    func defaults() {
        let limits = TransferLimits()
        #expect(limits.minimumAverageSpeed == 500)
        #expect(limits.totalTimeout == .seconds(600))
        #expect(limits.allowedSources == .publicOnly)
    }
}
