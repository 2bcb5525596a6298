import Foundation
@testable import PhotoWeb
import Testing
import HTTPTypes
import PhotoServer

@Suite("Retries of failed photos are limited", .serialized)
struct RetryLimitsTests {
    @Test func aPhotoWaitsLongerAfterEachRetryUpToAMinute() {
        // Given limits that allow any number of retries per client
        let limits = RetryLimits(perMinute: 1_000)
        var now = ContinuousClock.now
        #expect(limits.admit(4, for: "a", now: now) == nil)

        // Then each next retry of photo 4 waits 1, 2, 4, ... s, never more than 60, whoever asks
        for wait in [1, 2, 4, 8, 16, 32, 60, 60] {
            let early = limits.admit(4, for: "b", now: now + .seconds(wait) - .milliseconds(10))
            #expect(early?.seconds == 1, "a retry just before its \(wait) s wait is over is refused")
            now += .seconds(wait)
            #expect(limits.admit(4, for: "b", now: now) == nil, "a retry after \(wait) s is allowed")
        }
        // And another photo is not held by photo 4's back-off
        #expect(limits.admit(5, for: "a", now: now) == nil)
        // And a photo left alone for ten minutes starts again from a one-second wait
        now += .seconds(600)
        #expect(limits.admit(4, for: "a", now: now) == nil)
        #expect(limits.admit(4, for: "a", now: now + .seconds(1)) == nil)
    }

    @Test func aClientHasAtMostItsRetriesAMinute() {
        let limits = RetryLimits(perMinute: 2)
        let now = ContinuousClock.now
        #expect(limits.admit(1, for: "a", now: now) == nil)
        #expect(limits.admit(2, for: "a", now: now) == nil)
        let refused = limits.admit(3, for: "a", now: now)
        #expect(refused?.reason.contains("too many retries from a") == true)
        #expect(refused?.seconds == 30)
        // Another client is counted apart
        #expect(limits.admit(3, for: "b", now: now) == nil)
    }

    @Test func aPhotoThatFailsAgainAtOnceIsNotFetchedAgainAtOnce() async throws {
        // 21 sample photos: one is deliberately mis-named (as in the tutorial), so it fails every time
        try await WebHarness.with(photoCount: 21, configure: { $0.web.retriesPerMinute = 1 }) { harness in
            let viewer = try await harness.newViewer()
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            _ = try await stream.next { $0.name == "snapshot" }
            try await harness.report(viewer, scrolling: false, rows: 0...20)
            let failed = try await stream.next { $0.name == "photo" && $0.json["state"] as? String == "failed" }
            let index = try #require(failed.json["index"] as? Int)
            let isFailure = { (event: EventStreamReader.Event) in
                event.name == "photo" && event.json["index"] as? Int == index && event.json["state"] as? String == "failed"
            }

            // Given one retry taken, and the photo failed again
            #expect(try await harness.request(.POST, "/api/photos/\(index)/retry").status == 202)
            _ = try await stream.next(where: isFailure)

            // When it is retried again at once
            let refused = try await harness.request(.POST, "/api/photos/\(index)/retry")

            // Then it is refused with a reason and when to try again, and the server serves on
            #expect(refused.status == 429)
            #expect(Int(refused.headers[.retryAfter] ?? "") ?? 0 >= 1)
            #expect((refused.json["error"] as? String)?.isEmpty == false)
            #expect(try await harness.request(.GET, "/healthz").status == 200)
        }
    }
}
