import Foundation
import HTTPTypes
import PhotoCodecs
import PhotoPipeline
import PhotoServer
@testable import PhotoWeb
import TestOrigin
import Synchronization
import Testing

/// `GET /api/photos` answered on the event loop (issue 36, `ReadyPhotoList`): the same status, fields
/// and bytes as the route gives (another query takes the route), HEAD, gzip and 304 too, never an
/// answer made before the list changed, HTTP/1.1's order kept on a pipelined connection, and the same
/// over TLS with HTTP/2.
@Suite("The photo list on the event loop", .serialized, .timeLimit(.minutes(3)))
struct ReadyPhotoListTests {
    static func answered(_ harness: WebHarness) -> Int {
        harness.application.web.readyRoutes.answered(PhotosHandler.path)
    }

    /// `body` again until the list's version was the same before and after it (a row's event between
    /// changes the version, and with it what may be answered ready), at most 50 times; `tries` counts them.
    static func whileTheListStandsStill<T>(_ harness: WebHarness, tries: inout Int, _ body: () async throws -> T) async throws -> T {
        for _ in 0..<50 {
            tries += 1
            let version = ListVersion(of: harness.pipeline)
            let result = try await body()
            if ListVersion(of: harness.pipeline) == version { return result }
        }
        throw TestFailure("the list never stood still for a request")
    }

    static func whileTheListStandsStill<T>(_ harness: WebHarness, _ body: () async throws -> T) async throws -> T {
        var tries = 0
        return try await whileTheListStandsStill(harness, tries: &tries, body)
    }

    /// One page asked for through the route (which makes and keeps its answers) and then as a page
    /// asks, plain and with the tag it got; `sentReady`: how many of the latter the event loop sent.
    struct Asked {
        var route, ready, routedNotModified, notModified: TestResponse
        var sentReady: Int
        /// Times asked (again when the list changed meanwhile).
        var tries: Int
    }

    static func ask(_ harness: WebHarness, _ method: TestMethod, _ target: String, routed: String, headers: HTTPFields) async throws -> Asked {
        var tries = 0
        var asked = try await whileTheListStandsStill(harness, tries: &tries) {
            let route = try await harness.request(method, routed, headers: headers)
            let before = answered(harness)
            let ready = try await harness.request(method, target, headers: headers)
            let tag: HTTPFields = [.ifNoneMatch: ready.headers[.eTag] ?? "none"] + headers
            let notModified = try await harness.request(method, target, headers: tag)
            let routedNotModified = try await harness.request(method, routed, headers: tag)
            return Asked(
                route: route, ready: ready, routedNotModified: routedNotModified, notModified: notModified,
                sentReady: answered(harness) - before, tries: 0)
        }
        asked.tries = tries
        return asked
    }

    @Test func aKeptAnswerIsSentAsTheRouteSendsIt() async throws {
        try await WebHarness.with(photoCount: 20) { harness in
            for (target, routed) in [("/api/photos", "/api/photos?by=route"), ("/api/photos?from=3&limit=5", "/api/photos?limit=5&from=3&by=route")] {
                for gzip in [false, true] {
                    for method in [TestMethod.GET, .HEAD] {
                        // When a page is asked for through the route (made and kept) and as a page asks
                        let asked = try await Self.ask(harness, method, target, routed: routed, headers: gzip ? [.acceptEncoding: "gzip"] : [:])

                        // Then the second was sent from the event loop, and is the route's answer, Date aside
                        let (ready, route) = (asked.ready, asked.route)
                        #expect(asked.sentReady == 2, "\(method) \(target) gzip \(gzip)")
                        #expect(ready.status == 200 && route.status == 200)
                        #expect(ReadyThumbnailTests.fields(ready.headers) == ReadyThumbnailTests.fields(route.headers))
                        #expect(ready.headers[.date] != nil && ready.headers[.eTag] != nil)
                        #expect(ready.body == route.body)
                        // (five rows are too few for gzip to pay: sent as they are)
                        #expect((ready.headers[.contentEncoding] == "gzip") == (gzip && target == "/api/photos"))
                        #expect(ready.body.count == (method == .GET ? Int(ready.headers[.contentLength] ?? "") : 0))

                        // And a copy the client has is answered 304 alike
                        #expect(asked.notModified.status == 304 && asked.routedNotModified.status == 304)
                        #expect(ReadyThumbnailTests.fields(asked.notModified.headers) == ReadyThumbnailTests.fields(asked.routedNotModified.headers))
                        #expect(asked.notModified.body.isEmpty)
                    }
                }
            }
            // And a page the route refuses, or another path, is the route's to answer
            let before = Self.answered(harness)
            #expect(try await harness.request(.GET, "/api/photos?limit=0").status == 400)
            #expect(try await harness.request(.GET, "/api/photos?from=-1").status == 400)
            #expect(try await harness.request(.GET, "/api/photosx").status == 404)
            #expect(Self.answered(harness) == before)
        }
    }

    @Test func theMetricsCountReadyAnswersAsTheRoutes() async throws {
        try await WebHarness.with(photoCount: 20) { harness in
            func counts() async throws -> [String: Int] {
                let metrics = try await harness.request(.GET, "/metrics").text
                var counts: [String: Int] = [:]
                for (method, status) in [("GET", 200), ("GET", 304), ("HEAD", 200), ("HEAD", 304)] {
                    let line = metrics.split(separator: "\n").first {
                        $0.hasPrefix("http_requests_total") && $0.contains("route=\"\(method) /api/photos\"") && $0.contains("status=\"\(status)\"")
                    }
                    counts["\(method) \(status)"] = line.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) } ?? 0
                }
                return counts
            }
            // Given the counts before
            let before = try await counts()

            // When each answer is given once routed and once ready
            var tries: [String: Int] = [:]
            for method in [TestMethod.GET, .HEAD] {
                let asked = try await Self.ask(harness, method, "/api/photos", routed: "/api/photos?by=route", headers: [:])
                #expect(asked.sentReady == 2)
                tries["\(method)"] = asked.tries
            }

            // Then /metrics counts two more of each as the route's (two a try: one routed, one ready)
            let after = try await counts()
            for (name, count) in after {
                let method = String(name.prefix { $0 != " " })
                #expect(count - before[name, default: 0] == 2 * tries[method, default: 0], "\(name): \(before[name] ?? 0) -> \(count)")
            }
        }
    }

    @Test func aChangedListChangesTheTagAndTheBodyAndIsNeverSentFromTheOldAnswer() async throws {
        try await WebHarness.with(photoCount: 20) { harness in
            // Given an answer kept, and sent ready, while row 0 is new
            let key = PhotoListAnswers.Key(page: .top, gzip: false)
            let old = harness.application.web.context.photoList.made(key, of: harness.pipeline)
            let (kept, sentReady) = try await Self.askedTwice(harness)
            #expect(sentReady)
            #expect((kept.json["photos"] as? [[String: Any]])?.first?["state"] as? String == "new")

            // When row 0 is filtered
            let viewer = try await harness.newViewer()
            try await harness.report(viewer, scrolling: false, rows: 0...0)
            try await harness.waitUntilFiltered(0)

            // Then nothing is kept for the new version until it is made, and what is made is new
            #expect(harness.application.web.context.photoList.kept(key, of: harness.pipeline) == nil)
            let new = harness.application.web.context.photoList.made(key, of: harness.pipeline)
            #expect(new.tag != old.tag && new.body != old.body)
            // And every answer over HTTP says so, ready or routed, with another tag; the old tag gets a 200
            for _ in 0..<3 {
                let answer = try await harness.request(.GET, "/api/photos", headers: [.ifNoneMatch: try #require(kept.headers[.eTag])])
                #expect(answer.status == 200 && answer.headers[.eTag] != kept.headers[.eTag])
                #expect((answer.json["photos"] as? [[String: Any]])?.first?["state"] as? String == "filtered")
            }
            // And once the list stands still the new answer is sent ready again
            let (again, sentAgain) = try await Self.askedTwice(harness)
            #expect(sentAgain)
            #expect((again.json["photos"] as? [[String: Any]])?.first?["state"] as? String == "filtered")
        }
    }

    /// `GET /api/photos` twice while the list stands still: the second answer, and whether it was sent ready.
    static func askedTwice(_ harness: WebHarness) async throws -> (TestResponse, Bool) {
        try await whileTheListStandsStill(harness) {
            _ = try await harness.request(.GET, "/api/photos")
            let before = answered(harness)
            let second = try await harness.request(.GET, "/api/photos")
            return (second, answered(harness) == before + 1)
        }
    }

    @Test func overTLSWithHTTP2AndHTTP11() async throws {
        let folder = NSTemporaryDirectory() + "classic-photos-ready-list-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let files = try await TestCertificates.make("server", in: folder)
        try await WebHarness.with(configure: { $0.web.tls = files }) { harness in
            let port = harness.application.port
            for version in ["--http2", "--http1.1"] {
                for extra in [[], ["-I"], ["--compressed"]] {
                    let curl = { (path: String, more: [String]) in
                        try await ReadyThumbnailTests.curl(port, path, [version] + extra + more, in: folder)
                    }
                    let (routed, ready, notModified, routedNotModified, sentReady) = try await Self.whileTheListStandsStill(harness) {
                        let routed = try await curl("/api/photos?by=route", [])
                        let before = Self.answered(harness)
                        let ready = try await curl("/api/photos", [])
                        let tag = ready.headers.split(separator: "\n").first { $0.hasPrefix("etag:") }?.dropFirst(6) ?? "none"
                        let match = ["-H", "If-None-Match: \(tag.trimmingCharacters(in: .whitespacesAndNewlines))"]
                        let notModified = try await curl("/api/photos", match)
                        let routedNotModified = try await curl("/api/photos?by=route", match)
                        return (routed, ready, notModified, routedNotModified, Self.answered(harness) - before)
                    }
                    #expect(sentReady == 2, "\(version) \(extra)")
                    #expect(ready.version == (version == "--http2" ? "2" : "1.1") && ready.status == "200")
                    #expect(ready.headers == routed.headers && ready.body == routed.body)
                    #expect(ready.headers.contains("strict-transport-security: max-age="))
                    #expect(ready.headers.contains("content-encoding: gzip") == (extra == ["--compressed"]))
                    #expect(!ready.body.isEmpty || extra == ["-I"])
                    #expect(notModified.status == "304" && notModified.headers == routedNotModified.headers)
                }
            }
        }
    }
}
