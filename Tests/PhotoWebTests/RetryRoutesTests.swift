import Foundation
@testable import PhotoWeb
import Testing
import HTTPTypes
import PhotoServer

@Suite("Preview images and POST /api/photos/N/retry", .serialized)
struct RetryRoutesTests {
    @Test func aFailedRowCanBeRetriedAndADoneRowHasItsPreview() async throws {
        // 21 sample photos: the 21st (number 20) is deliberately mis-named, as in the tutorial
        try await WebHarness.with(photoCount: 21) { harness in
            let viewer = try await harness.newViewer()
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            _ = try await stream.next { $0.name == "snapshot" }

            // Given every row shown, until one fails and one turns sepia
            try await harness.report(viewer, scrolling: false, rows: 0...20)
            var failed: Int?
            var failure: [String: Any] = [:]
            var filtered: Int?
            _ = try await stream.next { event in
                guard event.name == "photo", let index = event.json["index"] as? Int else { return false }
                switch event.json["state"] as? String {
                case "failed":
                    failed = index
                    failure = event.json
                case "filtered": filtered = filtered ?? index
                default: break
                }
                return failed != nil && filtered != nil
            }

            // Then the failed row says why for people, with the technical detail beside it
            #expect(failure["reason"] as? String == "Not found at the origin (HTTP 404)")
            #expect((failure["detail"] as? String)?.contains("404") == true)

            // And the filtered row has its unfiltered preview
            let preview = try await harness.request(.GET, "/photos/\(filtered!)/preview")
            #expect(preview.status == 200)
            #expect(preview.headers[.contentType] == "image/jpeg" || preview.headers[.contentType] == "image/png")

            // And the failed row is accepted for another try, and goes back to new
            let retried = try await harness.request(.POST, "/api/photos/\(failed!)/retry")
            #expect(retried.status == 202)
            #expect(retried.json["state"] as? String == "new")
            // (on screen, it starts again at once: its unsent "new" may be folded into what came next)
            let again = try await stream.next { $0.name == "photo" && $0.json["index"] as? Int == failed }
            #expect(["new", "downloading", "failed"].contains(again.json["state"] as? String ?? ""))

            // And what cannot be retried is refused with a reason
            let notFailed = try await harness.request(.POST, "/api/photos/\(filtered!)/retry")
            #expect(notFailed.status == 409)
            #expect((notFailed.json["error"] as? String)?.contains("has not failed") == true)
            #expect(try await harness.request(.POST, "/api/photos/999/retry").status == 404)
            #expect(try await harness.request(.POST, "/api/photos/x/retry").status == 400)
        }
    }
}
