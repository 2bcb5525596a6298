import Foundation
@testable import PhotoWeb
import PhotoServer
import Testing

/// A viewer's reports paced on the server (issue 57, item 2; `ReportPace`): a report is taken as it
/// arrives, and its answer goes at most one a pace; one that arrives while an answer is held takes its
/// place (both go then, never a queue); a stop that asks for thumbnails is never held; a client
/// pipelining reports on one connection is answered one a pace.
@Suite("Viewport reports paced", .serialized, .timeLimit(.minutes(2)))
struct ReportPaceTests {
    static let pace = ReportPace.interval

    @Test func aReportInsideThePaceIsAnsweredWhenItHasPassedAndALaterOneTakesItsPlace() {
        let pace = ReportPace()
        let start = ContinuousClock.now
        let ms = { (n: Int) in start + .milliseconds(n) }

        // Outside the pace: at once
        #expect(pace.answer(at: start) == start)
        // The event loop, which answers only at once, is told no inside the pace, and nothing is recorded
        #expect(pace.answer(at: ms(5), holding: false) == nil)
        // Inside it: when it has passed
        #expect(pace.answer(at: ms(5)) == start + Self.pace)
        // While that answer is held, a later report takes its place: the same time, not a pace later
        #expect(pace.answer(at: ms(10)) == start + Self.pace)
        #expect(pace.answer(at: ms(10), holding: false) == nil)
        // Just after a held answer went: a pace after it
        let held = start + Self.pace
        #expect(pace.answer(at: held + .milliseconds(1)) == held + Self.pace)
        // Long after: at once again
        let later = held + Self.pace * 3
        #expect(pace.answer(at: later, holding: false) == later)
    }

    @Test func aReportIsTakenAtOnceItsAnswerHeldAndAStopAskingThumbnailsNeverHeld() async throws {
        try await WebHarness.with(photoCount: 300) { harness in
            let viewer = try await harness.newViewer()
            let handler = harness.application.web.answering.viewport
            let session = try harness.application.web.context.session(viewer)
            let report = { (rows: ClosedRange<Int>, scrolling: Bool) in
                Data(#"{"viewer": "\#(viewer)", "scrolling": \#(scrolling), "first": \#(rows.lowerBound), "last": \#(rows.upperBound)}"#.utf8)
            }

            // When a viewer reports, then reports again 5 ms later
            let start = ContinuousClock.now
            let first = try #require(try handler.take(report(0...5, true), at: start))
            let second = try #require(try handler.take(report(250...255, false), at: start + .milliseconds(5)))

            // Then the first is answered at once, the second when the pace has passed
            #expect(first.answerAt == start)
            #expect(second.answerAt == start + Self.pace)
            // And the second was taken at once, though its answer waits: the viewer's rows are there now
            #expect(session.wants(250) && !session.wants(0))

            // And a report that the event loop would answer is declined inside the pace, changing nothing
            #expect(try handler.take(report(0...5, false), holding: false, at: start + .milliseconds(10)) == nil)
            #expect(session.wants(250) && !session.wants(0))

            // And a stop asking for its rows' thumbnails is taken and answered at once, inside the pace
            let stopped = start + .milliseconds(10)
            let stop = try #require(try handler.take(report(100...105, false), asking: 100...101, at: stopped))
            #expect(stop.answerAt == stopped)
            #expect(session.wants(0) && !session.wants(250))
        }
    }

    @Test func reportsPipelinedOnOneConnectionAreAnsweredOneAPace() async throws {
        try await WebHarness.with(photoCount: 12) { harness in
            let viewer = try await harness.newViewer()
            let count = 8
            let posts = (0..<count).map { n in
                let body = #"{"viewer": "\#(viewer)", "scrolling": true, "first": \#(n % 4), "last": \#(n % 4 + 3)}"#
                return "POST /api/viewport HTTP/1.1\r\nHost: a\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            }.joined()
            let connection = try await RawConnection(port: harness.application.port)

            // When a client pipelines reports on one connection, as fast as it can
            let started = ContinuousClock.now
            #expect(await connection.send(posts + "GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"))
            let text = await connection.readUntilClosed().text
            let elapsed = ContinuousClock.now - started

            // Then each is answered 204, one a pace at most
            let statuses = text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
            #expect(statuses == Array(repeating: "204", count: count) + ["200"], "\(text)")
            #expect(elapsed >= Self.pace * (count - 1), "\(count) reports answered in \(elapsed)")
        }
    }
}
