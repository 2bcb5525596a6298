import Foundation
import HTTPTypes
import PhotoCodecs
import PhotoPipeline
import PhotoServer
@testable import PhotoWeb
@testable import PhotoTransport
import TestOrigin
import Synchronization
import Testing

/// A cached thumbnail answered on the event loop (issue 36, `ReadyThumbnails`): the same status,
/// fields and bytes as the route gives (a request with a query takes the route), HEAD and 304 too,
/// HTTP/1.1's order kept on a pipelined connection, never the bytes of a thumbnail no longer cached,
/// and the same over TLS with HTTP/2.
@Suite("Ready thumbnails on the event loop", .serialized, .timeLimit(.minutes(3)))
struct ReadyThumbnailTests {
    /// The response's fields but `Date`, in order, as "name: value".
    static func fields(_ headers: HTTPFields) -> [String] {
        headers.filter { $0.name != .date }.map { "\($0.name.canonicalName): \($0.value)" }
    }

    static func answered(_ harness: WebHarness) -> Int {
        harness.application.web.readyRoutes.answered(ImageHandler.path)
    }

    /// A server with photo `index`'s thumbnail made and in memory.
    static func withCachedThumbnail(
        _ index: Int = 0, configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (WebHarness) async throws -> Void
    ) async throws {
        try await WebHarness.with(configure: configure) { harness in
            let viewer = try await harness.newViewer()
            try await harness.report(viewer, scrolling: false, rows: index...index)
            try await harness.waitUntilFiltered(index)
            try await body(harness)
        }
    }

    @Test func aCachedThumbnailIsAnsweredAsTheRouteAnswersIt() async throws {
        try await Self.withCachedThumbnail { harness in
            for method in [TestMethod.GET, .HEAD] {
                // When the thumbnail is asked for as the page asks, and with a query (the route)
                let before = Self.answered(harness)
                let ready = try await harness.request(method, "/photos/0/thumbnail")
                #expect(Self.answered(harness) == before + 1)
                let routed = try await harness.request(method, "/photos/0/thumbnail?by=route")
                #expect(Self.answered(harness) == before + 1)

                // Then both are the same answer, Date aside
                #expect(ready.status == 200 && routed.status == 200)
                #expect(Self.fields(ready.headers) == Self.fields(routed.headers))
                #expect(ready.headers[.date] != nil)
                #expect(ready.body == routed.body)
                #expect(ready.body.count == (method == .GET ? Int(ready.headers[.contentLength] ?? "") : 0))

                // And a copy the client has is answered 304 alike
                let tag = try #require(ready.headers[.eTag])
                let notModified = try await harness.request(method, "/photos/0/thumbnail", headers: [.ifNoneMatch: tag])
                let routedNotModified = try await harness.request(method, "/photos/0/thumbnail?by=route", headers: [.ifNoneMatch: tag])
                #expect(Self.answered(harness) == before + 2)
                #expect(notModified.status == 304 && routedNotModified.status == 304)
                #expect(Self.fields(notModified.headers) == Self.fields(routedNotModified.headers))
                #expect(notModified.body.isEmpty)
            }
            // And /metrics counts them as the route's: two of each (one ready, one routed)
            let metrics = try await harness.request(.GET, "/metrics").text
            for (method, status) in [("GET", 200), ("GET", 304), ("HEAD", 200), ("HEAD", 304)] {
                let line = metrics.split(separator: "\n").first {
                    $0.hasPrefix("http_requests_total") && $0.contains("route=\"\(method) /photos/{index}/{variant}\"")
                        && $0.contains("status=\"\(status)\"")
                }
                #expect(line?.split(separator: " ").last == "2", "\(method) \(status): \(line ?? "no line")")
            }
        }
    }

    @Test func aThumbnailNoLongerCachedIsNeverAnsweredFromItsOldBytes() async throws {
        try await Self.withCachedThumbnail { harness in
            let before = try await harness.request(.GET, "/photos/0/thumbnail")
            #expect(before.status == 200)

            // When the list starts cold (memory and the results store emptied)
            #expect(harness.pipeline.startCold() != nil)

            // Then the thumbnail is the route's to answer, as one never made: not the old bytes
            let answered = Self.answered(harness)
            let after = try await harness.request(.GET, "/photos/0/thumbnail")
            let routed = try await harness.request(.GET, "/photos/0/thumbnail?by=route")
            #expect(Self.answered(harness) == answered)
            #expect(after.status != 200 && after.status == routed.status)

            // And once it is made again, it is answered ready again
            let viewer = try await harness.newViewer()
            try await harness.report(viewer, scrolling: false, rows: 0...0)
            try await harness.waitUntilFiltered(0)
            let again = try await harness.request(.GET, "/photos/0/thumbnail")
            #expect(again.status == 200 && Self.answered(harness) == answered + 1)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInTheirOrder() async throws {
        // Given photo 0 cached and photo 1 held by its origin halfway through its download
        let gate = OriginGate()
        gate.open(.firstBytes)
        let first = Array(try JPEGEncoder.encode(SamplePhoto.make(seed: 3, width: 320, height: 213), quality: 85))
        let second = Array(try JPEGEncoder.encode(SamplePhoto.make(seed: 4, width: 320, height: 213), quality: 85))
        let origin = try TestOrigin(routes: [
            "/p0.jpg": .body(contentType: "image/jpeg", bytes: first),
            "/p1.jpg": .gated(bytes: second, firstBytes: second.count / 2, gate: gate),
        ])
        defer { gate.openAll(); origin.stop() }
        try await WebHarness.with(origin: origin, photos: ["p0": "/p0.jpg", "p1": "/p1.jpg"]) { harness in
            let viewer = try await harness.newViewer()
            try await harness.report(viewer, scrolling: false, rows: 0...1)
            try await harness.waitUntilFiltered(0)
            let ready = try await harness.request(.GET, "/photos/0/thumbnail")
            #expect(ready.status == 200)
            let deadline = ContinuousClock.now + .seconds(60)
            func downloading() -> Bool {
                if case .downloading = harness.pipeline.record(1).state { return true }
                return false
            }
            while !downloading() {
                try #require(ContinuousClock.now < deadline, "photo 1 never started downloading")
                try await Task.sleep(for: .milliseconds(5))
            }

            // When one connection sends, at once, the thumbnail on its way, the cached one, and a last request
            let connection = try await RawConnection(port: harness.application.port)
            await connection.send(
                "GET /photos/1/thumbnail HTTP/1.1\r\nHost: a\r\n\r\nGET /photos/0/thumbnail HTTP/1.1\r\nHost: a\r\n\r\n"
                    + "GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            try await harness.untilAThumbnailIsAwaited("the ask for photo 1 never waited")
            gate.open(.rest)

            // Then the answers come in the order of the requests: photo 1's first, then photo 0's
            let text = await connection.readUntilClosed().text.lowercased()
            let tags = text.split(separator: "\r\n").filter { $0.hasPrefix("etag:") }
            #expect(tags.count == 2)
            #expect(tags.first?.contains("thumbnail-1-") == true)
            #expect(tags.last.map { $0.contains("thumbnail-0-") && text.contains($0) } == true)
            #expect(text.components(separatedBy: "http/1.1 200").count == 4, "three answers, all 200")
        }
    }

    @Test func overTLSWithHTTP2AndHTTP11() async throws {
        let folder = NSTemporaryDirectory() + "classic-photos-ready-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let files = try await TestCertificates.make("server", in: folder)
        try await WebHarness.with(configure: { $0.web.tls = files }) { harness in
            let port = harness.application.port
            try await Self.showFiltered(0...0, over: port, in: harness)
            for version in ["--http2", "--http1.1"] {
                for extra in [[], ["-I"]] {
                    let before = Self.answered(harness)
                    let ready = try await Self.curl(port, "/photos/0/thumbnail", [version] + extra, in: folder)
                    #expect(Self.answered(harness) == before + 1)
                    let routed = try await Self.curl(port, "/photos/0/thumbnail?by=route", [version] + extra, in: folder)
                    #expect(ready.version == (version == "--http2" ? "2" : "1.1") && ready.status == "200")
                    #expect(ready.headers == routed.headers && ready.body == routed.body)
                    #expect(ready.headers.contains("strict-transport-security: max-age="))
                    #expect(!ready.body.isEmpty || extra == ["-I"])
                    let tag = try #require(ready.headers.split(separator: "\n").first { $0.hasPrefix("etag:") }?.dropFirst(6))
                    let match = ["-H", "If-None-Match: \(tag.trimmingCharacters(in: .whitespacesAndNewlines))"]
                    let notModified = try await Self.curl(port, "/photos/0/thumbnail", [version] + extra + match, in: folder)
                    let routedNotModified = try await Self.curl(port, "/photos/0/thumbnail?by=route", [version] + extra + match, in: folder)
                    #expect(notModified.status == "304" && notModified.headers == routedNotModified.headers)
                    #expect(Self.answered(harness) == before + 2)
                }
            }
        }
    }

    @Test func theDateFieldIsWrittenAsHummingbirdWritesIt() {
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(951_782_400 + 3_723) == "Tue, 29 Feb 2000 01:02:03 GMT")
    }

    /// The page's way to made thumbnails, over HTTPS: a viewer with `rows` on screen, until each is filtered.
    static func showFiltered(_ rows: ClosedRange<Int>, over port: UInt16, in harness: WebHarness) async throws {
        let made = try await TestCertificates.run("/usr/bin/curl", ["-sk", "-X", "POST", "https://127.0.0.1:\(port)/api/viewers"])
        let viewer = try #require((try JSONSerialization.jsonObject(with: Data(made.utf8)) as? [String: Any])?["viewer"] as? String)
        try await TestCertificates.run("/usr/bin/curl", [
            "-sk", "-H", "Content-Type: application/json",
            "--data", #"{"viewer": "\#(viewer)", "scrolling": false, "first": \#(rows.lowerBound), "last": \#(rows.upperBound)}"#,
            "https://127.0.0.1:\(port)/api/viewport",
        ])
        for row in rows { try await harness.waitUntilFiltered(row) }
    }

    /// `curl -k` on `path`: the HTTP version, the status, the fields but `Date` (lowercased, sorted) and the body.
    static func curl(
        _ port: UInt16, _ path: String, _ options: [String], in folder: String
    ) async throws -> (version: String, status: String, headers: String, body: Data) {
        let name = folder + "/" + UUID().uuidString
        let out = try await TestCertificates.run("/usr/bin/curl", [
            "-sk", "-o", name + ".body", "-D", name + ".head", "-w", "%{http_version} %{http_code}",
        ] + options + ["https://127.0.0.1:\(port)\(path)"]).split(separator: " ").map(String.init)
        let head = try String(contentsOfFile: name + ".head", encoding: .utf8).lowercased()
            .split(separator: "\r\n").dropFirst().filter { !$0.hasPrefix("date:") }.sorted().joined(separator: "\n")
        // With -I, curl writes the head where the body would go; an empty body makes no file.
        let body = options.contains("-I") ? Data() : (try? Data(contentsOf: URL(fileURLWithPath: name + ".body"))) ?? Data()
        return (out[0], out[1], head, body)
    }
}
