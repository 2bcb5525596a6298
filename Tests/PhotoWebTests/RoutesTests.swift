import HTTPTypes
import Foundation
@testable import PhotoWeb
import Testing
import PhotoPipeline
import PhotoServer

@Suite("HTTP routes", .serialized)
struct RoutesTests {
    @Test func thePageIsANewViewerEachTime() async throws {
        try await WebHarness.with { harness in
            let first = try await harness.request(.GET, "/")
            let second = try await harness.request(.GET, "/")

            #expect(first.status == 200)
            #expect(first.headers[.contentType]?.hasPrefix("text/html") == true)
            let ids = [first, second].compactMap { response in
                response.text.firstMatch(of: /data-viewer="([0-9a-f-]+)"/).map { String($0.1) }
            }
            #expect(ids.count == 2 && ids[0] != ids[1])
            #expect(ids.allSatisfy { harness.application.web.context.viewers.session(.init($0)) != nil })
        }
    }

    @Test func theListAndTheTotalsAreJSON() async throws {
        try await WebHarness.with(photoCount: 50) { harness in
            let photos = try await harness.request(.GET, "/api/photos")
            #expect(photos.status == 200)
            #expect(photos.json["status"] as? String == "ready")
            let rows = try #require(photos.json["photos"] as? [[String: Any]])
            #expect(rows.count == 50)
            #expect(rows.map { $0["index"] as? Int } == Array(0..<50))
            let names = rows.compactMap { $0["name"] as? String }
            #expect(names == names.sorted())
            // The sample origin lists a few mis-named photos, as the tutorial does
            #expect(rows.contains { ($0["url"] as? String)?.contains("phtoo-") == true })

            let stats = try await harness.request(.GET, "/api/stats")
            #expect(stats.status == 200)
            #expect((stats.json["downloads"] as? [String: Any])?["started"] as? Int == 0)
        }
    }

    /// The list comes in pages, so one answer costs the same at any list length.
    @Test func theListComesInPagesWithinBounds() async throws {
        try await WebHarness.with(photoCount: 50) { harness in
            let page = try await harness.request(.GET, "/api/photos?from=45&limit=3")
            #expect(page.json["count"] as? Int == 50)
            #expect(page.json["from"] as? Int == 45)
            #expect(page.json["next"] as? Int == 48)
            #expect((page.json["photos"] as? [[String: Any]])?.map { $0["index"] as? Int } == [45, 46, 47])

            let last = try await harness.request(.GET, "/api/photos?from=48&limit=1000")
            #expect((last.json["photos"] as? [[String: Any]])?.count == 2)
            #expect(last.json["next"] as? Int == nil)
            let past = try await harness.request(.GET, "/api/photos?from=9223372036854775807")
            #expect(past.status == 200)
            #expect((past.json["photos"] as? [Any])?.isEmpty == true)

            for query in ["from=-1", "limit=0", "limit=1001", "from=x", "limit=99999999999999999999"] {
                let refused = try await harness.request(.GET, "/api/photos?\(query)")
                #expect(refused.status == 400, "\(query)")
                #expect((refused.json["error"] as? String)?.contains("whole number") == true, "\(query)")
            }
        }
    }

    @Test func aThumbnailIsServedWithAnETagOnceReadyAndAskingEarlyStartsNothing() async throws {
        try await WebHarness.with { harness in
            let viewer = try await harness.newViewer()

            // Asking for a thumbnail before its row was ever visible is a 404 that starts no work
            let early = try await harness.request(.GET, "/photos/0/thumbnail")
            #expect(early.status == 404)
            #expect((early.json["error"] as? String)?.contains("not available yet") == true)
            #expect(harness.pipeline.stats.downloads.started == 0)

            // Once the row is on screen and filtered, the thumbnail is there with caching headers
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            try await harness.report(viewer, scrolling: false, rows: 0...0)
            _ = try await stream.next { $0.name == "photo" && $0.json["index"] as? Int == 0 && $0.json["state"] as? String == "filtered" }
            let thumbnail = try await harness.request(.GET, "/photos/0/thumbnail")
            #expect(thumbnail.status == 200)
            #expect(thumbnail.headers[.contentType] == "image/jpeg")
            #expect(thumbnail.body.starts(with: [0xFF, 0xD8]))
            let tag = try #require(thumbnail.headers[.eTag])
            let again = try await harness.request(.GET, "/photos/0/thumbnail", headers: [.ifNoneMatch: tag])
            #expect(again.status == 304)

            let original = try await harness.request(.GET, "/photos/0/original")
            #expect(original.status == 200 && original.body.count > thumbnail.body.count)
            let sepia = try await harness.request(.GET, "/photos/0/sepia")
            #expect(sepia.status == 200 && sepia.body.starts(with: [0xFF, 0xD8]))

            #expect(try await harness.request(.GET, "/photos/999/thumbnail").status == 404)
            #expect(try await harness.request(.GET, "/photos/x/thumbnail").status == 400)
            #expect(try await harness.request(.GET, "/photos/0/poster").status == 404)
        }
    }

    @Test func unknownRoutesAndStaticFiles() async throws {
        try await WebHarness.with { harness in
            let missing = try await harness.request(.GET, "/no/such/thing")
            #expect(missing.status == 404)
            #expect(missing.json["error"] as? String == "no route for GET /no/such/thing")
            let script = try await harness.request(.GET, "/static/app.js")
            #expect(script.status == 200)
            #expect(script.headers[.contentType]?.hasPrefix("text/javascript") == true)
            #expect(try await harness.request(.GET, "/static/..%2FPackage.swift").status == 404)
        }
    }

    @Test func underAPublicBasePathTheLinksAndRoutesCarryIt() async throws {
        try await WebHarness.with(configure: { $0.web.basePath = "/demo" }) { harness in
            let page = try await harness.request(.GET, "/demo/")
            #expect(page.status == 200)
            let version = harness.application.web.context.staticFiles.version
            #expect(page.text.contains("/demo/static/v/\(version)/app.js"))
            #expect(try await harness.request(.GET, "/demo/static/v/\(version)/app.js").status == 200)
            #expect(try await harness.request(.GET, "/demo/api/photos").json["status"] as? String == "ready")
            #expect(try await harness.request(.GET, "/demo/healthz").status == 200)
            // A proxy that strips the prefix reaches the same routes at the root
            #expect(try await harness.request(.GET, "/api/photos").status == 200)
        }
    }
}
