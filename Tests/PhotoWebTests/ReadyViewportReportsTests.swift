import Foundation
import HTTPTypes
import PhotoPipeline
import PhotoServer
@testable import PhotoWeb
import Synchronization
import Testing

/// Viewport reports taken on the event loop (issue 36, `ReadyViewportReports`): a taken report is the
/// route's `204` field for field and counted as the route's, and does what the route's does; a report
/// the route would refuse gets the route's refusal; a body larger than the event loop reads, chunked
/// or not, is the route's; HTTP/1.1's order holds.
@Suite("Viewport reports on the event loop", .serialized, .timeLimit(.minutes(3)))
struct ReadyViewportReportsTests {
    static func answered(_ harness: WebHarness) -> Int {
        harness.application.web.readyRoutes.answered(Routes.viewportPath)
    }

    static func report(_ viewer: String, rows: ClosedRange<Int>) -> String {
        #"{"viewer": "\#(viewer)", "scrolling": false, "first": \#(rows.lowerBound), "last": \#(rows.upperBound)}"#
    }

    @Test func aTakenReportIsTheRoutesAnswerAndStartsItsRows() async throws {
        try await WebHarness.with(photoCount: 12) { harness in
            // (Two viewers: a viewer's report inside its pace is the route's, `ReportPaceTests`.)
            let (viewer, other) = (try await harness.newViewer(), try await harness.newViewer())
            let before = Self.answered(harness)

            // When one viewer reports through the route (a query takes the route) and another plainly
            let routed = try await harness.post("/api/viewport?by=route", json: #"{"viewer": "\#(other)", "scrolling": true}"#)
            #expect(Self.answered(harness) == before)
            let plain = try await harness.post("/api/viewport", json: Self.report(viewer, rows: 5...6))

            // Then the plain one was taken on the event loop, with the route's answer
            #expect(Self.answered(harness) == before + 1)
            #expect(plain.status == 204 && routed.status == 204)
            #expect(ReadyThumbnailTests.fields(plain.headers) == ReadyThumbnailTests.fields(routed.headers))
            #expect(plain.headers[.date] != nil && plain.body.isEmpty)

            // And it did what the route's does: its rows are loaded
            try await harness.waitUntilFiltered(5)
            try await harness.waitUntilFiltered(6)

            // And /metrics counts both as the route's
            let metrics = try await harness.request(.GET, "/metrics").text
            let line = metrics.split(separator: "\n").first {
                $0.hasPrefix("http_requests_total") && $0.contains(#"route="POST /api/viewport""#) && $0.contains(#"status="204""#)
            }
            #expect(line.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) } ?? 0 >= 2)
        }
    }

    @Test func aReportTheRouteRefusesIsTheRoutesRefusal() async throws {
        try await WebHarness.with(photoCount: 12) { harness in
            let viewer = try await harness.newViewer()
            let refused = [
                "{not json", #"{"scrolling": true}"#, #"{"viewer": "nobody", "scrolling": true}"#,
                Self.report(viewer, rows: 11...12), #"{"viewer": "\#(viewer)", "scrolling": false}"#,
            ]
            let before = Self.answered(harness)
            for body in refused {
                // When a bad report is sent plainly and through the route
                let plain = try await harness.post("/api/viewport", json: body)
                let routed = try await harness.post("/api/viewport?by=route", json: body)

                // Then both are the route's refusal, with its reason
                #expect(plain.status == routed.status && (400..<500).contains(plain.status), "\(body)")
                #expect(plain.text == routed.text && plain.text.contains("error"), "\(body)")
            }
            #expect(Self.answered(harness) == before)
        }
    }

    @Test func aBodyLargerThanTheEventLoopReadsIsTheRoutes() async throws {
        try await WebHarness.with(photoCount: 12) { harness in
            let viewer = try await harness.newViewer()
            let limit = harness.application.web.answering.reportBodyLimit
            // A valid report padded past the event loop's limit, under the route's
            let padded = Self.report(viewer, rows: 0...1) + String(repeating: " ", count: limit)
            let before = Self.answered(harness)

            // When it is sent with a Content-Length, and chunked in pieces over one connection
            let whole = try await harness.post("/api/viewport", json: padded)
            let connection = try await RawConnection(port: harness.application.port)
            let bytes = Array(padded.utf8)
            var chunked = "POST /api/viewport HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            for start in stride(from: 0, to: bytes.count, by: 1_000) {
                let piece = bytes[start..<min(bytes.count, start + 1_000)]
                chunked += String(piece.count, radix: 16) + "\r\n" + String(decoding: piece, as: UTF8.self) + "\r\n"
            }
            #expect(await connection.send(chunked + "0\r\n\r\n"))
            let answer = await connection.readUntilClosed().text

            // Then both are taken by the route
            #expect(whole.status == 204)
            #expect(answer.hasPrefix("HTTP/1.1 204"), "\(answer.prefix(200))")
            #expect(Self.answered(harness) == before)

            // And a chunked report within the limit (of a viewer outside its pace) is taken on the event loop
            let small = try await RawConnection(port: harness.application.port)
            let body = Self.report(try await harness.newViewer(), rows: 2...3)
            let half = body.utf8.count / 2
            let (first, second) = (String(body.utf8.prefix(half))!, String(body.utf8.dropFirst(half))!)
            #expect(await small.send(
                "POST /api/viewport HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "\(String(first.utf8.count, radix: 16))\r\n\(first)\r\n\(String(second.utf8.count, radix: 16))\r\n\(second)\r\n0\r\n\r\n"
                    + "GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"))
            #expect(await small.readUntilClosed().text.hasPrefix("HTTP/1.1 204"))
            #expect(Self.answered(harness) == before + 1)
        }
    }

    @Test func pipelinedReportsAreAnsweredInOrder() async throws {
        try await WebHarness.with(photoCount: 12) { harness in
            let viewer = try await harness.newViewer()
            let before = Self.answered(harness)
            let body = Self.report(viewer, rows: 0...2)
            let post = "POST /api/viewport HTTP/1.1\r\nHost: a\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"

            // When one connection sends a report, a request the router answers, a report, and a last one at once
            let connection = try await RawConnection(port: harness.application.port)
            #expect(await connection.send(post + "GET /api/stats HTTP/1.1\r\nHost: a\r\n\r\n" + post
                + "GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"))

            // Then the four answers come in the order of the requests
            let text = await connection.readUntilClosed().text
            // (A body runs straight into the next status line.)
            let statuses = text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
            #expect(statuses == ["204", "200", "204", "200"], "\(text)")
            #expect(text.contains(#""maxConcurrentDownloads""#), "the stats are the second answer's")
            // The first report at least was taken on the event loop (the third may wait behind the stats)
            #expect(Self.answered(harness) >= before + 1)
        }
    }

    @Test func overTLSWithHTTP2AndHTTP11() async throws {
        let folder = NSTemporaryDirectory() + "classic-photos-ready-reports-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let files = try await TestCertificates.make("server", in: folder)
        try await WebHarness.with(photoCount: 12, configure: { $0.web.tls = files }) { harness in
            let port = harness.application.port
            let newViewer = { () async throws -> String in
                let made = try await TestCertificates.run("/usr/bin/curl", ["-sk", "-X", "POST", "https://127.0.0.1:\(port)/api/viewers"])
                return try #require((try JSONSerialization.jsonObject(with: Data(made.utf8)) as? [String: Any])?["viewer"] as? String)
            }
            // (The route's report by another viewer, and one viewer a version: a viewer's report inside its pace is the route's.)
            let other = try await newViewer()
            for (version, rows) in [("--http2", 0...1), ("--http1.1", 2...3)] {
                let viewer = try await newViewer()
                let post = { (path: String, body: String) in
                    try await ReadyThumbnailTests.curl(port, path, [version, "-H", "Content-Type: application/json", "--data", body], in: folder)
                }
                // When a report is sent through the route and plainly, and a refused one plainly
                let routed = try await post("/api/viewport?by=route", #"{"viewer": "\#(other)", "scrolling": true}"#)
                let before = Self.answered(harness)
                let plain = try await post("/api/viewport", Self.report(viewer, rows: rows))
                let taken = Self.answered(harness) == before + 1
                let refused = try await post("/api/viewport", Self.report(viewer, rows: 11...12))

                // Then the plain one is taken on the event loop with the route's answer, and the refusal is the route's
                #expect(taken, "\(version)")
                #expect(plain.version == (version == "--http2" ? "2" : "1.1") && plain.status == "204")
                #expect(plain.headers == routed.headers)
                #expect(refused.status == "422" && String(decoding: refused.body, as: UTF8.self).contains("past the end of the list"))
                #expect(Self.answered(harness) == before + 1)
                for row in rows { try await harness.waitUntilFiltered(row) }
            }
        }
    }
}
