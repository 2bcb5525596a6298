import Foundation
import HTTPTypes
import PhotoCodecs
import PhotoPipeline
import PhotoServer
@testable import PhotoWeb
import TestOrigin
import Synchronization
import Testing

/// A plain page load answered on the event loop (issue 36, `ReadyPage`): a new viewer whose first
/// screen starts, and the route's page byte for byte (its own viewer's id aside), the same fields and
/// `/metrics` count, the client's limits kept (a refusal is the route's page saying why), never a
/// first screen from before the list changed, HTTP/1.1's order kept, and the same over TLS with HTTP/2.
@Suite("The page on the event loop", .serialized, .timeLimit(.minutes(3)))
struct ReadyPageTests {
    static func answered(_ harness: WebHarness) -> Int {
        harness.application.web.readyRoutes.answered(PageHandler.path)
    }

    /// The viewer id a page carries (`data-viewer="…"`).
    static func viewer(in page: String) -> String {
        guard let start = page.range(of: #"data-viewer=""#)?.upperBound, let end = page[start...].firstIndex(of: "\"") else { return "" }
        return String(page[start..<end])
    }

    /// A server of 12 photos whose first screen's rows are all filtered: a page load starts no work
    /// there, so the list stands still between loads.
    static func withFilteredTop(configure: @escaping (inout ServerConfiguration) -> Void = { _ in }, _ body: (WebHarness) async throws -> Void) async throws {
        try await WebHarness.with(photoCount: 12, configure: configure) { harness in
            let viewer = try await harness.newViewer()
            try await harness.report(viewer, scrolling: false, rows: 0...11)
            for row in 0..<12 { try await harness.waitUntilFiltered(row) }
            try await body(harness)
        }
    }

    /// The route's page (`?by=route`: a query takes the route) and then a plain load, while the list
    /// stands still; `sentReady`: whether the plain one was answered on the event loop.
    static func routedThenPlain(_ harness: WebHarness) async throws -> (routed: TestResponse, plain: TestResponse, sentReady: Bool) {
        try await ReadyPhotoListTests.whileTheListStandsStill(harness) {
            let routed = try await harness.request(.GET, "/?by=route")
            let before = answered(harness)
            let plain = try await harness.request(.GET, "/")
            return (routed, plain, answered(harness) == before + 1)
        }
    }

    @Test func aPlainLoadIsTheRoutesPageWithANewViewer() async throws {
        try await Self.withFilteredTop { harness in
            let viewers = harness.application.web.context.viewers
            let before = viewers.count

            // When the page is loaded through the route and plainly
            let (routed, plain, sentReady) = try await Self.routedThenPlain(harness)

            // Then the plain load was answered on the event loop, with the route's fields and page
            #expect(sentReady)
            #expect(plain.status == 200 && routed.status == 200)
            #expect(ReadyThumbnailTests.fields(plain.headers) == ReadyThumbnailTests.fields(routed.headers))
            #expect(plain.headers[.date] != nil)
            let (mine, theirs) = (Self.viewer(in: plain.text), Self.viewer(in: routed.text))
            #expect(!mine.isEmpty && mine != theirs)
            #expect(plain.text.replacingOccurrences(of: mine, with: theirs) == routed.text)
            #expect(plain.text.contains(#"href="/photos/0/thumbnail""#))

            // And its viewer is a viewer of the list, whose stream opens
            #expect(viewers.count >= before + 2)
            #expect(viewers.session(ViewerID(mine)) != nil)
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(mine)")
            _ = try await stream.next { $0.name == "snapshot" }

            // And /metrics counts both as the route's
            let metrics = try await harness.request(.GET, "/metrics").text
            let line = metrics.split(separator: "\n").first {
                $0.hasPrefix("http_requests_total") && $0.contains(#"route="GET /""#) && $0.contains(#"status="200""#)
            }
            #expect(line.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) } ?? 0 >= 2)

            // And what is not a plain load is the route's: HEAD, a query (gzip: ReadyGzipPageTests)
            let answeredBefore = Self.answered(harness)
            #expect(try await harness.request(.HEAD, "/").status == 200)
            #expect(try await harness.request(.GET, "/?row=3").status == 200)
            #expect(Self.answered(harness) == answeredBefore)
        }
    }

    @Test func aLoadTheClientsLimitRefusesIsTheRoutesRefusal() async throws {
        try await Self.withFilteredTop(configure: { $0.web.viewersPerMinute = 3 }) { harness in
            // Given a client that made two viewers (the filtering one, and the route's page)
            let html: HTTPFields = [.accept: "text/html"]
            #expect(try await harness.request(.GET, "/?by=route", headers: html).status == 200)

            // When it loads the page twice more
            let before = Self.answered(harness)
            let third = try await harness.request(.GET, "/", headers: html)
            let fourth = try await harness.request(.GET, "/", headers: html)

            // Then the third is served on the event loop, and the fourth is the route's page saying why
            #expect(third.status == 200 && Self.answered(harness) == before + 1)
            #expect(fourth.status == 429 && Self.answered(harness) == before + 1)
            #expect(fourth.headers[.retryAfter] != nil)
            #expect(fourth.text.contains("Too many visits from your address"))
        }
    }

    @Test func aRefundGivesBackTheTokenTaken() {
        let limiter = ClientRateLimiter(perMinute: 2)
        #expect(limiter.admit("10.0.0.1") == nil && limiter.admit("10.0.0.1") == nil)
        #expect(limiter.admit("10.0.0.1") != nil)
        limiter.refund("10.0.0.1")
        #expect(limiter.admit("10.0.0.1") == nil)
        #expect(limiter.admit("10.0.0.1") != nil)
        // A refund never makes a bucket hold more than a minute's worth
        let other = ClientRateLimiter(perMinute: 1)
        #expect(other.admit("10.0.0.2") == nil)
        other.refund("10.0.0.2")
        other.refund("10.0.0.2")
        #expect(other.admit("10.0.0.2") == nil && other.admit("10.0.0.2") != nil)
    }

    @Test func aPageIsNeverMadeFromAFirstScreenOlderThanTheList() async throws {
        // Given a list whose only photo's origin holds the second half of its bytes
        let gate = OriginGate()
        gate.open(.firstBytes)
        let photo = Array(try JPEGEncoder.encode(SamplePhoto.make(seed: 5, width: 320, height: 213), quality: 85))
        let origin = try TestOrigin(routes: ["/p0.jpg": .gated(bytes: photo, firstBytes: photo.count / 2, gate: gate)])
        defer { gate.openAll(); origin.stop() }
        try await WebHarness.with(origin: origin, photos: ["p0": "/p0.jpg"]) { harness in
            // And pages loaded (starting the photo) until one is answered on the event loop while it is held
            let preload = #"href="/photos/0/thumbnail""#
            let (_, held, sentReady) = try await Self.routedThenPlain(harness)
            #expect(sentReady && !held.text.contains(preload))

            // When the photo is filtered
            gate.open(.rest)
            try await harness.waitUntilFiltered(0)

            // Then no first screen is kept for the new version until it is made, and every page says so
            #expect(harness.application.web.answering.page.keptTopScreen(of: harness.pipeline) == nil)
            for _ in 0..<3 {
                #expect(try await harness.request(.GET, "/").text.contains(preload))
            }
            let (_, after, sentAgain) = try await Self.routedThenPlain(harness)
            #expect(sentAgain && after.text.contains(preload))
        }
    }

    @Test func overTLSWithHTTP2AndHTTP11() async throws {
        let folder = NSTemporaryDirectory() + "classic-photos-ready-page-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let files = try await TestCertificates.make("server", in: folder)
        try await WebHarness.with(photoCount: 12, configure: { $0.web.tls = files }) { harness in
            let port = harness.application.port
            try await ReadyThumbnailTests.showFiltered(0...11, over: port, in: harness)
            for version in ["--http2", "--http1.1"] {
                let (routed, plain, sentReady) = try await ReadyPhotoListTests.whileTheListStandsStill(harness) {
                    let routed = try await ReadyThumbnailTests.curl(port, "/?by=route", [version], in: folder)
                    let before = Self.answered(harness)
                    let plain = try await ReadyThumbnailTests.curl(port, "/", [version], in: folder)
                    return (routed, plain, Self.answered(harness) == before + 1)
                }
                #expect(sentReady, "\(version)")
                #expect(plain.version == (version == "--http2" ? "2" : "1.1") && plain.status == "200")
                #expect(plain.headers == routed.headers)
                #expect(plain.headers.contains("strict-transport-security: max-age="))
                let (page, route) = (String(decoding: plain.body, as: UTF8.self), String(decoding: routed.body, as: UTF8.self))
                #expect(page.replacingOccurrences(of: Self.viewer(in: page), with: Self.viewer(in: route)) == route)
            }
        }
    }
}
