import Foundation
import HTTPTypes
import PhotoPipeline
import PhotoServer
@testable import PhotoWeb
import Testing

/// The page's first screen and `GET /api/photos` are made once per list version (issue 36): while
/// the list stands still they are reused (and a current copy gets a 304), and once it changed no
/// answer says what it was before.
@Suite("Bodies made from the list are cached per list version", .serialized)
struct ListCacheTests {
    @Test func aChangedListChangesTheETagAndACurrentCopyGetsA304() async throws {
        try await WebHarness.with(photoCount: 20) { harness in
            // Given an answer and its tag
            let first = try await harness.request(.GET, "/api/photos?from=0&limit=5")
            let tag = try #require(first.headers[.eTag])
            #expect(first.headers[.cacheControl] == "no-cache")

            // While nothing changed, the same tag, and a client holding it gets a 304 with no body
            let again = try await harness.request(.GET, "/api/photos?from=0&limit=5")
            #expect(again.headers[.eTag] == tag)
            #expect(again.body == first.body)
            let current = try await harness.request(.GET, "/api/photos?from=0&limit=5", headers: [.ifNoneMatch: tag])
            #expect(current.status == 304)
            #expect(current.body.isEmpty)
            // Another page of the list is another body, with another tag
            #expect(try await harness.request(.GET, "/api/photos?from=5&limit=5").headers[.eTag] != tag)

            // When row 0 is filtered
            let viewer = try await harness.newViewer()
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            try await harness.report(viewer, scrolling: false, rows: 0...0)
            try await stream.waitUntilFiltered(0...0)

            // Then the old tag is not current: a 200 with a new tag and the row's new state
            let changed = try await harness.request(.GET, "/api/photos?from=0&limit=5", headers: [.ifNoneMatch: tag])
            #expect(changed.status == 200)
            #expect(changed.headers[.eTag] != tag)
            #expect((changed.json["photos"] as? [[String: Any]])?.first?["state"] as? String == "filtered")
        }
    }

    @Test func aStalePageIsNeverServedAfterTheListChanged() async throws {
        try await WebHarness.with(photoCount: 20) { harness in
            // Given a list and pages made (and kept) while row 0 is new: no preload for its thumbnail.
            // (A page load starts its first screen's rows, row 0 among them, after its page is made:
            // the list is asked first, and the later pages are HEADs, made and kept but starting nothing.)
            let preload = #"href="/photos/0/thumbnail""#
            let kept = try await harness.request(.GET, "/api/photos?limit=1")
            #expect((kept.json["photos"] as? [[String: Any]])?.first?["state"] as? String != "filtered")
            let page = try await harness.request(.GET, "/?row=1")
            #expect(page.status == 200)
            #expect(!page.text.contains(preload))
            for _ in 0..<2 {
                #expect(try await harness.request(.HEAD, "/?row=1").status == 200)
            }

            // When row 0 is filtered (started by the page's first screen, and by a viewer's report)
            let viewer = try await harness.newViewer()
            try await harness.report(viewer, scrolling: false, rows: 0...0)
            try await harness.waitUntilFiltered(0)

            // Then every page and every list after it says so, gzipped or not
            for _ in 0..<3 {
                #expect(try await harness.request(.GET, "/?row=1").text.contains(preload))
                let list = try await harness.request(.GET, "/api/photos?limit=1")
                #expect((list.json["photos"] as? [[String: Any]])?.first?["state"] as? String == "filtered")
            }
            let gzipped = try await harness.request(.GET, "/api/photos?limit=1", headers: [.acceptEncoding: "gzip"])
            #expect(gzipped.status == 200)
            #expect(gzipped.headers[.eTag] != kept.headers[.eTag])
        }
    }

    @Test func aValueMadeAtAnOlderVersionNeverReplacesANewerOne() async throws {
        try await WebHarness.with(photoCount: 20) { harness in
            // Given versions before and after a change of the list
            let cache = ListVersionCache<Int, String>(capacity: 4)
            let older = ListVersion(of: harness.pipeline)
            let viewer = try await harness.newViewer()
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            try await harness.report(viewer, scrolling: false, rows: 0...0)
            try await stream.waitUntilFiltered(0...0)
            let newer = ListVersion(of: harness.pipeline)
            #expect(newer != older)

            // When the newer value is kept and a slow request made at the older version ends after it
            #expect(cache.value(for: 1, at: newer) { "new" } == "new")
            #expect(cache.value(for: 1, at: older) { "old" } == "old")

            // Then the newer one is still what the newer version gets, made once
            #expect(cache.value(for: 1, at: newer) { "made again" } == "new")
            // and at capacity values are made but not kept
            for key in 2...6 { _ = cache.value(for: key, at: newer) { "\(key)" } }
            #expect(cache.value(for: 6, at: newer) { "not kept" } == "not kept")
        }
    }
}
