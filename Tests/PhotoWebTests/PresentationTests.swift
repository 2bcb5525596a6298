import HTTPTypes
import Foundation
@testable import PhotoWeb
import Testing
import PhotoPipeline
import PhotoServer

/// Issue 37: a presenter's scroll followed by other viewers, who add no work of their own, and a
/// follow code that grants nothing but watching.
@Suite("Follow a presenter", .serialized)
struct PresentationTests {
    static let browser: HTTPFields = [.accept: "text/html,application/xhtml+xml,*/*;q=0.8"]

    /// The viewer id a page was made for.
    static func viewer(inPage html: String) throws -> String {
        let marker = try #require(html.range(of: #"data-viewer=""#))
        return String(html[marker.upperBound...].prefix { $0 != "\"" })
    }

    /// Starts presenting `viewer`; the follow code.
    static func present(_ viewer: String, _ harness: WebHarness) async throws -> String {
        let started = try await harness.post("/api/presentations", json: #"{"viewer": "\#(viewer)"}"#)
        #expect(started.status == 201, "\(started.text)")
        return try #require(started.json["code"] as? String)
    }

    @Test func aFollowerMovesWithThePresenterGetsItsRowsAndStartsNoWorkOfItsOwn() async throws {
        try await WebHarness.with(photoCount: 60) { harness in
            // Given a presenter and its follow code: 128 bits, not its viewer id
            let presenter = try await harness.newViewer()
            let code = try await Self.present(presenter, harness)
            #expect(code.count == 32 && code != presenter && !code.contains(presenter))

            // When a page opens the follow link
            let page = try await harness.request(.GET, "/?follow=\(code)", headers: Self.browser)
            #expect(page.status == 200)
            // Then it is a new viewer that started nothing (a page of its own starts its first screen)
            #expect(harness.pipeline.stats.downloads.started == 0)
            let follower = try Self.viewer(inPage: page.text)
            #expect(follower != presenter && follower != code)
            let events = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(follower)")
            let joined = try await events.next(where: { $0.name == "presentation" })
            #expect(joined.json["role"] as? String == "follower" && joined.json["code"] as? String == code)

            // When the presenter stops on rows 40-43, the follower is moved there and sent those rows' states
            try await harness.report(presenter, scrolling: false, rows: 40...43)
            let moved = try await events.next(where: { $0.name == "presentation" && $0.json["first"] as? Int == 40 })
            #expect(moved.json["last"] as? Int == 43 && moved.json["scrolling"] as? Bool == false)
            // The presenter's work is the follower's story: its operations come marked `mine`
            let own = try await events.next(where: { $0.name == "operation" && $0.json["mine"] as? Bool == true })
            #expect((40...43).contains(own.json["index"] as? Int ?? -1), "\(own.json)")
            try await events.waitUntilFiltered(40...43)

            // A normal page does ask for its first screen (started, or queued behind the download
            // queue's limit) before it is answered: the check above could fail
            #expect(try await harness.request(.GET, "/", headers: Self.browser).status == 200)
            let downloads = harness.pipeline.stats.downloads
            #expect(downloads.started + downloads.pending > 4, "\(downloads)")
        }
    }

    @Test func whatAPresentersScrollShowsMovesItsFollowersAndStartsNothing() async throws {
        try await WebHarness.with(photoCount: 60) { harness in
            // Given a presenter at rows 0-3, its work done, and a follower there
            let presenter = try await harness.newViewer()
            let code = try await Self.present(presenter, harness)
            try await harness.report(presenter, scrolling: false, rows: 0...3)
            let presenterEvents = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(presenter)")
            // (the sample list fails row 1 on purpose: its queues going idle says all four are final)
            _ = try await presenterEvents.next { event in
                guard event.name == "queues" else { return false }
                return ["download", "filtration"].allSatisfy { queue in
                    let counts = event.json[queue] as? [String: Any]
                    return counts?["executing"] as? Int == 0 && counts?["pending"] as? Int == 0
                }
            }
            let page = try await harness.request(.GET, "/?follow=\(code)", headers: Self.browser)
            let follower = try Self.viewer(inPage: page.text)
            let events = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(follower)")
            _ = try await events.next(where: { $0.name == "presentation" && $0.json["first"] as? Int == 0 })
            let started = harness.pipeline.stats.downloads.started

            // When the presenter reads on with one wheel notch (not told as a scroll), its rows shown
            let step = try await harness.post("/api/viewport", json: #"{"viewer": "\#(presenter)", "scrolling": false, "showing": {"first": 2, "last": 5}}"#)
            #expect(step.status == 204, "\(step.text)")
            // Then the follower is there, not told a scroll, and nothing started
            let read = try await events.next(where: { $0.name == "presentation" && $0.json["first"] as? Int == 2 })
            #expect(read.json["last"] as? Int == 5 && read.json["scrolling"] as? Bool == false)
            #expect(harness.pipeline.stats.downloads.started == started)

            // When the presenter's person-made scroll passes rows 30-33 (it sends no rows until it stops)
            let passing = try await harness.post("/api/viewport", json: #"{"viewer": "\#(presenter)", "scrolling": true, "showing": {"first": 30, "last": 33}}"#)
            #expect(passing.status == 204, "\(passing.text)")

            // Then the follower is moved there, told it is a scroll, and sent the rows' states
            let moved = try await events.next(where: { $0.name == "presentation" && $0.json["first"] as? Int == 30 })
            #expect(moved.json["last"] as? Int == 33 && moved.json["scrolling"] as? Bool == true)
            _ = try await events.next(where: { $0.name == "photo" && $0.json["index"] as? Int == 31 })
            // And the rows it passes start nothing: the presenter's queues are suspended, as for any scroll
            _ = try await presenterEvents.next { event in
                event.name == "queues" && ((event.json["download"] as? [String: Any])?["suspended"] as? Bool) == true
            }
            #expect(harness.pipeline.stats.downloads.started == started)

            // When it stops there, its rows load
            try await harness.report(presenter, scrolling: false, rows: 30...33)
            try await presenterEvents.waitUntilFiltered(30...33)
        }
    }

    @Test func onAnEagerServerAFollowerStillAsksForNothing() async throws {
        try await WebHarness.with(photoCount: 60, configure: { $0.web.strategy = .eager }) { harness in
            let presenter = try await harness.newViewer()
            let code = try await Self.present(presenter, harness)
            // A viewer of an eager server asks for every row as it is made: the check below could fail
            let presenterSession = try #require(harness.application.web.context.viewers.session(.init(presenter)))
            #expect(presenterSession.existingController?.strategy == .eager)

            let page = try await harness.request(.GET, "/?follow=\(code)", headers: Self.browser)
            #expect(page.status == 200)
            let follower = try #require(harness.application.web.context.viewers.session(.init(try Self.viewer(inPage: page.text))))
            #expect(follower.existingController == nil, "a follower adds no demand of its own")

            // Until it reports a viewport of its own: then it is an ordinary (eager) viewer
            try await harness.report(follower.id.rawValue, scrolling: false, rows: 0...3)
            #expect(follower.existingController?.strategy == .eager)
        }
    }

    @Test func aFollowerThatScrollsItselfBreaksAwayAndCanFollowAgain() async throws {
        try await WebHarness.with(photoCount: 60) { harness in
            let presenter = try await harness.newViewer()
            let presenterEvents = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(presenter)")
            let code = try await Self.present(presenter, harness)
            let follower = try await harness.newViewer()
            let followed = try await harness.post("/api/presentations/\(code)/followers", json: #"{"viewer": "\#(follower)"}"#)
            #expect(followed.status == 200)
            // Counted once its stream is open (a follower that receives nothing is not in the count)
            let followerEvents = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(follower)")
            _ = try await presenterEvents.next(where: { $0.name == "presentation" && $0.json["followers"] as? Int == 1 })
            // While it follows, the presenter's rows reach it (handed on by the relay)
            try await harness.report(presenter, scrolling: false, rows: 20...23)
            try await followerEvents.waitUntilFiltered(20...23)

            // When the follower reports a viewport of its own, it follows nobody: the presenter hears so,
            // and its own rows reach it
            try await harness.report(follower, scrolling: false, rows: 0...3)
            _ = try await presenterEvents.next(where: { $0.name == "presentation" && $0.json["followers"] as? Int == 0 })
            try await followerEvents.waitUntilFiltered(2...3)

            // And following again counts it again
            #expect(try await harness.post("/api/presentations/\(code)/followers", json: #"{"viewer": "\#(follower)"}"#).status == 200)
            _ = try await presenterEvents.next(where: { $0.name == "presentation" && $0.json["followers"] as? Int == 1 })
        }
    }

    @Test func aFollowCodeDrivesNothingAndOnlyThePresenterEndsItsPresentation() async throws {
        try await WebHarness.with(photoCount: 60) { harness in
            let presenter = try await harness.newViewer()
            let code = try await Self.present(presenter, harness)
            let follower = try await harness.newViewer()
            #expect(try await harness.post("/api/presentations/\(code)/followers", json: #"{"viewer": "\#(follower)"}"#).status == 200)
            let events = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(follower)")

            // The code is no viewer: it cannot report, leave, present or end anything
            #expect(try await harness.post("/api/viewport", json: #"{"viewer": "\#(code)", "scrolling": false, "first": 0, "last": 1}"#).status == 404)
            #expect(try await harness.request(.DELETE, "/api/viewers/\(code)").status == 404)
            #expect(try await harness.request(.DELETE, "/api/presentations/\(code)?viewer=\(code)").status == 404)
            #expect(try await harness.post("/api/presentations", json: #"{"viewer": "\#(code)"}"#).status == 404)
            // A follower cannot end it either, nor can a guessed code be followed
            #expect(try await harness.request(.DELETE, "/api/presentations/\(code)?viewer=\(follower)").status == 404)
            let guessed = String(repeating: "0", count: 32)
            #expect(try await harness.post("/api/presentations/\(guessed)/followers", json: #"{"viewer": "\#(follower)"}"#).status == 404)
            let unknown = try await harness.request(.GET, "/?follow=\(guessed)", headers: Self.browser)
            #expect(unknown.status == 404 && unknown.text.contains("No such presentation") && !unknown.text.contains("data-viewer"))

            // When the presenter ends it, its follower is told, and the link says it ended
            #expect(try await harness.request(.DELETE, "/api/presentations/\(code)?viewer=\(presenter)").status == 204)
            _ = try await events.next(where: { $0.name == "presentation" && $0.json["ended"] as? Bool == true })
            let ended = try await harness.request(.GET, "/?follow=\(code)", headers: Self.browser)
            #expect(ended.status == 404 && ended.text.contains("This presentation has ended"))
        }
    }

    @Test func followersPerPresentationAndPresentationsPerClientAreRefusedWithAReason() async throws {
        try await WebHarness.with(photoCount: 12, configure: { $0.web.followersPerPresentation = 1; $0.web.presentationsPerClient = 1 }) { harness in
            let presenter = try await harness.newViewer()
            let code = try await Self.present(presenter, harness)
            // The same presenter asking again gets the same presentation, not a second one
            let again = try await harness.post("/api/presentations", json: #"{"viewer": "\#(presenter)"}"#)
            #expect(again.status == 201 && again.json["code"] as? String == code)
            let other = try await harness.newViewer()
            let second = try await harness.post("/api/presentations", json: #"{"viewer": "\#(other)"}"#)
            #expect(second.status == 429 && (second.json["error"] as? String)?.contains("--presentations-per-client") == true)

            #expect(try await harness.post("/api/presentations/\(code)/followers", json: #"{"viewer": "\#(other)"}"#).status == 200)
            let third = try await harness.newViewer()
            let refused = try await harness.post("/api/presentations/\(code)/followers", json: #"{"viewer": "\#(third)"}"#)
            #expect(refused.status == 429 && (refused.json["error"] as? String)?.contains("--followers-per-presentation") == true)
            #expect(try await harness.post("/api/presentations/\(code)/followers", json: #"{"viewer": "\#(presenter)"}"#).status == 409)
        }
    }
}
