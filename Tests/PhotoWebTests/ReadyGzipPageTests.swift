import Foundation
import HTTPTypes
import PhotoCodecs
import PhotoPipeline
import PhotoServer
@testable import PhotoWeb
import TestOrigin
import Testing

/// A gzipped page load (what every browser asks for) answered on the event loop (issue 36,
/// `ReadyPage` with `PageTemplate.gzippedBody`): gzip(1) turns it into the route's page for its
/// viewer, with the route's fields and a right `Content-Length`; `gzip;q=0` is the plain page as the
/// route sends it; never a first screen from before the list changed; the same over TLS, both versions.
@Suite("The gzipped page on the event loop", .serialized, .timeLimit(.minutes(3)))
struct ReadyGzipPageTests {
    static let gzip: HTTPFields = [.acceptEncoding: "gzip, deflate, br"]

    /// The fields but `Content-Length` (a spliced member is not the route's compressed bytes).
    static func fieldsButLength(_ headers: HTTPFields) -> [String] {
        ReadyThumbnailTests.fields(headers).filter { !$0.lowercased().hasPrefix("content-length:") }
    }

    @Test func aGzippedLoadDecompressesToTheRoutesPage() async throws {
        try await ReadyPageTests.withFilteredTop { harness in
            // When the page is asked for gzipped through the route and plainly
            let (routed, plain, sentReady) = try await ReadyPhotoListTests.whileTheListStandsStill(harness) {
                let routed = try await harness.request(.GET, "/?by=route", headers: Self.gzip)
                let before = ReadyPageTests.answered(harness)
                let plain = try await harness.request(.GET, "/", headers: Self.gzip)
                return (routed, plain, ReadyPageTests.answered(harness) == before + 1)
            }

            // Then the plain one was answered on the event loop, gzipped, with the route's fields in its order
            #expect(sentReady)
            #expect(plain.status == 200 && routed.status == 200)
            #expect(plain.headers[.contentEncoding] == "gzip" && routed.headers[.contentEncoding] == "gzip")
            #expect(Self.fieldsButLength(plain.headers) == Self.fieldsButLength(routed.headers))
            let names = ReadyThumbnailTests.fields(plain.headers).map { $0.prefix { $0 != ":" } }
            #expect(names == ReadyThumbnailTests.fields(routed.headers).map { $0.prefix { $0 != ":" } })
            #expect(plain.headers[.contentLength] == String(plain.body.count))

            // And it decompresses to the route's page for its own viewer
            let page = try #require(try await GzipSpliceTests.gunzip(plain.body))
            let route = try #require(try await GzipSpliceTests.gunzip(routed.body))
            let (mine, theirs) = (ReadyPageTests.viewer(in: page), ReadyPageTests.viewer(in: route))
            #expect(!mine.isEmpty && mine != theirs)
            #expect(page.replacingOccurrences(of: mine, with: theirs) == route)
            #expect(page.contains(#"href="/photos/0/thumbnail""#))
            #expect(harness.application.web.context.viewers.session(ViewerID(mine)) != nil)
        }
    }

    @Test(arguments: ["gzip;q=0", "identity", "br;q=1, gzip;q=0.0"])
    func aLoadThatRefusesGzipIsThePlainPage(acceptEncoding: String) async throws {
        try await ReadyPageTests.withFilteredTop { harness in
            let refusing: HTTPFields = [.acceptEncoding: acceptEncoding]
            let (routed, plain, sentReady) = try await ReadyPhotoListTests.whileTheListStandsStill(harness) {
                let routed = try await harness.request(.GET, "/?by=route", headers: refusing)
                let before = ReadyPageTests.answered(harness)
                let plain = try await harness.request(.GET, "/", headers: refusing)
                return (routed, plain, ReadyPageTests.answered(harness) == before + 1)
            }
            #expect(sentReady)
            #expect(plain.headers[.contentEncoding] == nil && routed.headers[.contentEncoding] == nil)
            #expect(ReadyThumbnailTests.fields(plain.headers).count == ReadyThumbnailTests.fields(routed.headers).count)
            #expect(Self.fieldsButLength(plain.headers) == Self.fieldsButLength(routed.headers))
            let (mine, theirs) = (ReadyPageTests.viewer(in: plain.text), ReadyPageTests.viewer(in: routed.text))
            #expect(plain.text.replacingOccurrences(of: mine, with: theirs) == routed.text)
        }
    }

    @Test func aGzippedPageIsNeverMadeFromAFirstScreenOlderThanTheList() async throws {
        // Given a list whose only photo's origin holds the second half of its bytes
        let gate = OriginGate()
        gate.open(.firstBytes)
        let photo = Array(try JPEGEncoder.encode(SamplePhoto.make(seed: 7, width: 320, height: 213), quality: 85))
        let origin = try TestOrigin(routes: ["/p0.jpg": .gated(bytes: photo, firstBytes: photo.count / 2, gate: gate)])
        defer { gate.openAll(); origin.stop() }
        try await WebHarness.with(origin: origin, photos: ["p0": "/p0.jpg"]) { harness in
            let preload = #"href="/photos/0/thumbnail""#
            func gzippedLoad() async throws -> (page: String, sentReady: Bool) {
                try await ReadyPhotoListTests.whileTheListStandsStill(harness) {
                    _ = try await harness.request(.GET, "/?by=route", headers: Self.gzip)
                    let before = ReadyPageTests.answered(harness)
                    let answer = try await harness.request(.GET, "/", headers: Self.gzip)
                    let page = try #require(try await GzipSpliceTests.gunzip(answer.body))
                    return (page, ReadyPageTests.answered(harness) == before + 1)
                }
            }
            // And a gzipped page answered on the event loop while the photo is held
            let held = try await gzippedLoad()
            #expect(held.sentReady && !held.page.contains(preload))

            // When the photo is filtered
            gate.open(.rest)
            try await harness.waitUntilFiltered(0)

            // Then every gzipped page says so, the event loop's too
            for _ in 0..<3 {
                let answer = try await harness.request(.GET, "/", headers: Self.gzip)
                #expect(try await GzipSpliceTests.gunzip(answer.body)?.contains(preload) == true)
            }
            let after = try await gzippedLoad()
            #expect(after.sentReady && after.page.contains(preload))
        }
    }

    @Test func overTLSWithHTTP2AndHTTP11() async throws {
        let folder = NSTemporaryDirectory() + "classic-photos-ready-gzip-page-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let files = try await TestCertificates.make("server", in: folder)
        try await WebHarness.with(photoCount: 12, configure: { $0.web.tls = files }) { harness in
            let port = harness.application.port
            try await ReadyThumbnailTests.showFiltered(0...11, over: port, in: harness)
            for version in ["--http2", "--http1.1"] {
                // curl asks for gzip and hands the body on as it came (no --compressed)
                let options = [version, "-H", "Accept-Encoding: gzip"]
                let (routed, plain, sentReady) = try await ReadyPhotoListTests.whileTheListStandsStill(harness) {
                    let routed = try await ReadyThumbnailTests.curl(port, "/?by=route", options, in: folder)
                    let before = ReadyPageTests.answered(harness)
                    let plain = try await ReadyThumbnailTests.curl(port, "/", options, in: folder)
                    return (routed, plain, ReadyPageTests.answered(harness) == before + 1)
                }
                #expect(sentReady, "\(version)")
                #expect(plain.version == (version == "--http2" ? "2" : "1.1") && plain.status == "200")
                let withoutLength = { (head: String) in head.split(separator: "\n").filter { !$0.hasPrefix("content-length:") } }
                #expect(withoutLength(plain.headers) == withoutLength(routed.headers))
                #expect(plain.headers.contains("content-encoding: gzip"))
                #expect(plain.headers.contains("content-length: \(plain.body.count)"))
                let page = try #require(try await GzipSpliceTests.gunzip(plain.body))
                let route = try #require(try await GzipSpliceTests.gunzip(routed.body))
                #expect(page.replacingOccurrences(of: ReadyPageTests.viewer(in: page), with: ReadyPageTests.viewer(in: route)) == route)
            }
        }
    }
}
