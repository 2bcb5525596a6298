import Foundation
import HTTPTransfer
import HTTPTypes
import PhotoCodecs
import PhotoPipeline
import PhotoServer
@testable import PhotoWeb
import TestOrigin
import Testing

/// `GET /photos/N/thumbnail` for a photo still on its way waits for it (issue 38): a page asks as the
/// last byte arrives and gets the thumbnail the moment it is made, not a 404 and a second round trip.
@Suite("A thumbnail asked for on its way", .timeLimit(.minutes(2)))
struct ReadyThumbnailRouteTests {
    @Test func aThumbnailAskedForWhileItsPhotoDownloadsIsAnsweredWhenItIsMade() async throws {
        // Given a list whose photo's origin holds the second half of its bytes
        let photo = Array(try JPEGEncoder.encode(SamplePhoto.make(seed: 4, width: 640, height: 427), quality: 85))
        try await WebHarness.withHalfHeldPhoto(photo) { harness, gate, stream in
            // And a viewer with the photo on screen, its download under way
            _ = try await stream.next { $0.name == "photo" && $0.json["index"] as? Int == 0 && $0.json["state"] as? String == "downloading" }

            // When the page asks for its thumbnail, and the rest of the bytes arrive once the ask waits
            let asked = Task { try await harness.request(.GET, "/photos/0/thumbnail") }
            try await harness.untilAThumbnailIsAwaited("the ask never waited")
            gate.open(.rest)

            // Then the ask is answered with the sepia thumbnail, as a later ask gets it
            let answer = try await asked.value
            #expect(answer.status == 200)
            #expect(answer.headers[.contentType] == "image/jpeg")
            let later = try await harness.request(.GET, "/photos/0/thumbnail")
            #expect(later.status == 200 && answer.body == later.body)
        }
    }
}
