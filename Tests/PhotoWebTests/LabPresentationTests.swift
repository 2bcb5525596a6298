import Foundation
import HTTPTypes
@testable import PhotoWeb
import PhotoPipeline
import PhotoServer
import Testing

/// Issue 37, the lab presented: a follow code shows the presenter's run to its followers (a watcher per
/// server lane) and grants nothing else: it drives, reports for, ends and restarts nothing.
@Suite("The lab presented: follow codes, watchers and their refusals", .serialized)
struct LabPresentationTests {
    static let browser: HTTPFields = [.accept: "text/html,application/xhtml+xml,*/*;q=0.8"]
    static let lanes = #"{"lanes": [{"strategy": "eager"}, {"strategy": "prefetch"}, {"strategy": "browser"}], "latencyMs": 0, "bandwidth": 50000000, "photos": 8}"#

    /// A new lab of `lanes`: its id and its lanes' viewers (nil for the browser lane).
    static func lab(_ harness: WebHarness) async throws -> (id: String, viewers: [String?]) {
        let created = try await harness.post("/api/labs", json: lanes)
        #expect(created.status == 201, "\(created.text)")
        let lanes = try #require(created.json["lanes"] as? [[String: Any]])
        return (try #require(created.json["lab"] as? String), lanes.map { $0["viewer"] as? String })
    }

    static func follow(_ code: String, _ harness: WebHarness) async throws -> [String: Any] {
        let joined = try await harness.post("/api/lab-presentations/\(code)/followers", json: "")
        #expect(joined.status == 201, "\(joined.text)")
        return joined.json
    }

    static func watchers(in view: [String: Any]) -> [String?] {
        ((view["lab"] as? [String: Any])?["lanes"] as? [[String: Any]] ?? []).map { $0["viewer"] as? String }
    }

    static func patient(_ configuration: inout ServerConfiguration) {
        configuration.web.viewerConnectTimeout = .seconds(600)
        configuration.web.labIdleTimeout = .seconds(600)
        configuration.web.followersPerPresentation = 2
        configuration.web.labsPerClient = 8
    }

    @Test func aFollowCodeWatchesThePresentersRunAndCannotDriveReportEndOrRestartIt() async throws {
        try await WebHarness.with(configure: { Self.patient(&$0) }) { harness in
            // Given a presented lab: a follow code of 128 bits, not the lab's id nor a lane's viewer
            let lab = try await Self.lab(harness)
            let started = try await harness.post("/api/labs/\(lab.id)/presentation", json: "")
            #expect(started.status == 201, "\(started.text)")
            let code = try #require(started.json["code"] as? String)
            #expect(code.count == 32 && !code.contains(lab.id) && !lab.viewers.contains(code))
            #expect(started.json["follow"] as? String == "/lab?follow=\(code)")

            // When a follower joins, its view is the presenter's run: watchers of its own, no lab id
            let view = try await Self.follow(code, harness)
            let key = try #require(view["follower"] as? String)
            let watchers = Self.watchers(in: view)
            #expect(view["run"] as? Int == 1 && (view["lab"] as? [String: Any])?["lab"] == nil)
            #expect(watchers.count == 3 && watchers[2] == nil && watchers[0] != nil && watchers[1] != nil)
            #expect(Set(watchers.compactMap { $0 }).isDisjoint(with: lab.viewers.compactMap { $0 }))
            #expect(!view.description.contains(lab.id) && !view.description.contains(lab.viewers[0] ?? "?"))

            // Then its first watcher hears the presenter's scroll, and each watcher its lane's rows
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(try #require(watchers[0]))")
            let rows = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(try #require(watchers[1]))")
            try await harness.report(try #require(lab.viewers[0]), scrolling: false, rows: 2...5)
            try await harness.report(try #require(lab.viewers[1]), scrolling: false, rows: 2...5)
            let moved = try await stream.next { $0.name == "presentation" && $0.json["first"] as? Int == 2 }
            #expect(moved.json["role"] as? String == "follower" && moved.json["last"] as? Int == 5)
            try await rows.waitUntilFiltered(2...5)
            #expect(try await harness.request(.GET, "/photos/3/thumbnail?viewer=\(try #require(watchers[1]))").status == 200)

            // And it cannot drive its lane: a report, a hidden tab or a strategy of its own is refused as unknown
            let context = harness.application.web.context
            for body in [#""scrolling": false, "first": 6, "last": 7"#, #""hidden": true"#, #""scrolling": false, "first": 0, "last": 1, "strategy": "eager""#] {
                let refused = try await harness.post("/api/viewport", json: #"{"viewer": "\#(watchers[1]!)", \#(body)}"#)
                #expect(refused.status == 404, "\(body): \(refused.text)")
            }
            // (a report it could make would give it a controller: demand of its own on the presenter's lane)
            let watcher = try #require(context.viewers.session(.init(watchers[1]!)))
            #expect(watcher.existingController == nil)
            #expect(context.viewers.session(.init(lab.viewers[1]!))?.existingController?.strategy.name == "prefetch")

            // And neither the follow code nor the follower's key ends, drives or carries on the lab
            for secret in [code, key] {
                #expect(try await harness.request(.GET, "/api/labs/\(secret)").status == 404)
                #expect(try await harness.request(.DELETE, "/api/labs/\(secret)").status == 404)
                #expect(try await harness.request(.DELETE, "/api/labs/\(secret)/presentation").status == 404)
                #expect(try await harness.post("/api/labs/\(secret)/presentation", json: "").status == 404)
                #expect(try await harness.post("/api/viewport", json: #"{"viewer": "\#(secret)", "scrolling": true}"#).status == 404)
                #expect(try await harness.post("/api/presentations/\(code)/cold-starts", json: #"{"viewer": "\#(secret)"}"#).status == 404)
            }
            // A lab of the follower's own cannot take the presentation over by its code
            let own = try await Self.lab(harness)
            let takeover = try await harness.post("/api/labs/\(own.id)/presentation", json: #"{"after": "\#(code)"}"#)
            #expect(takeover.status == 404, "\(takeover.text)")
            #expect(try await harness.request(.GET, "/api/labs/\(lab.id)").status == 200, "the presenter's lab still runs")

            // And past --followers-per-presentation (2 here) a follower is refused with the reason
            _ = try await Self.follow(code, harness)
            let third = try await harness.post("/api/lab-presentations/\(code)/followers", json: "")
            #expect(third.status == 429 && third.text.contains("followers-per-presentation"), "\(third.text)")

            // When the presenter stops, the follower is told, and the follow link is a page saying it ended
            #expect(try await harness.request(.DELETE, "/api/labs/\(lab.id)/presentation").status == 204)
            let ended = try await stream.next { $0.name == "presentation" && $0.json["ended"] as? Bool == true }
            #expect(ended.json["code"] as? String == code)
            let page = try await harness.request(.GET, "/lab?follow=\(code)", headers: Self.browser)
            #expect(page.status == 404 && page.text.contains("This presentation has ended"), "\(page.text)")
            #expect(try await harness.request(.GET, "/api/lab-presentations/\(code)/followers/\(key)").status == 404)
            // A watcher of an ended presentation still cannot drive
            #expect(try await harness.post("/api/viewport", json: #"{"viewer": "\#(watchers[1]!)", "scrolling": true}"#).status == 404)
        }
    }

    @Test func wrongCodesAre404AndAPageSayingSoNeverSomeoneElsesLab() async throws {
        try await WebHarness.with(configure: { Self.patient(&$0); $0.web.maxLabs = 1 }) { harness in
            let lab = try await Self.lab(harness)
            #expect(try await harness.request(.GET, "/lab", headers: Self.browser).status == 503, "the labs are at their cap")
            let real = try #require(try await harness.post("/api/labs/\(lab.id)/presentation", json: "").json["code"] as? String)
            let guessed = String(real.reversed()) == real ? String(repeating: "0", count: 32) : String(real.reversed())
            for code in [guessed, "0123", "ZZ" + real.dropFirst(2), String(repeating: "f", count: 33)] {
                let join = try await harness.post("/api/lab-presentations/\(code)/followers", json: "")
                #expect(join.status == 404 && join.text.contains("no such presentation"), "\(code): \(join.text)")
                let page = try await harness.request(.GET, "/lab?follow=\(code)", headers: Self.browser)
                #expect(page.status == 404 && page.text.contains("No such presentation") && !page.text.contains("lane-scroller"))
                #expect(try await harness.request(.GET, "/api/lab-presentations/\(code)/followers/\(real)").status == 404)
            }
            // The real one opens the lab page, even with the labs at their cap
            #expect(try await harness.request(.GET, "/lab?follow=\(real)", headers: Self.browser).status == 200)
        }
    }

    @Test func thePresentersNextRunCarriesThePresentationOnWithNewWatchers() async throws {
        try await WebHarness.with(configure: { Self.patient(&$0) }) { harness in
            let first = try await Self.lab(harness)
            let code = try #require(try await harness.post("/api/labs/\(first.id)/presentation", json: "").json["code"] as? String)
            let view = try await Self.follow(code, harness)
            let key = try #require(view["follower"] as? String)

            // When the presenter ends its lab and runs a new one, naming the last
            #expect(try await harness.request(.DELETE, "/api/labs/\(first.id)").status == 204)
            let second = try await Self.lab(harness)
            let carried = try await harness.post("/api/labs/\(second.id)/presentation", json: #"{"after": "\#(first.id)"}"#)
            #expect(carried.status == 201 && carried.json["code"] as? String == code, "\(carried.text)")

            // Then the follower's next view is run 2, with watchers of the new lanes
            let next = try await harness.request(.GET, "/api/lab-presentations/\(code)/followers/\(key)")
            #expect(next.status == 200 && next.json["run"] as? Int == 2)
            let watchers = Self.watchers(in: next.json).compactMap { $0 }
            let context = harness.application.web.context
            #expect(watchers.count == 2)
            for (watcher, lane) in zip(watchers, try #require(context.labs.lab(second.id)).lanes) {
                #expect(context.viewers.session(.init(watcher))?.channel === lane.channel)
            }
            // And the old run's id carries nothing on any more
            let third = try await Self.lab(harness)
            let stale = try await harness.post("/api/labs/\(third.id)/presentation", json: #"{"after": "\#(first.id)"}"#)
            #expect(stale.status == 404, "\(stale.text)")
        }
    }
}

/// The tick of lab presentations, on a clock the test moves: a run's lab that ended keeps its followers
/// while the presenter may come back, then the presentation ends; a follower not heard from is dropped.
@Suite("The lab presented: followers that left and presenters that did not come back", .serialized)
struct LabPresentationTickTests {
    @Test func aPresentationWaitsOutTheGapForTheNextRunThenEnds() async throws {
        try await WebHarness.with(configure: { LabPresentationTests.patient(&$0) }) { harness in
            let presentations = harness.application.web.context.labs.presentations
            let lab = try await LabPresentationTests.lab(harness)
            let code = try #require(try await harness.post("/api/labs/\(lab.id)/presentation", json: "").json["code"] as? String)
            let key = try #require(try await LabPresentationTests.follow(code, harness)["follower"] as? String)
            let view = "/api/lab-presentations/\(code)/followers/\(key)"

            // When the presenter's lab ends and a tick sees it: its follower stays (its watchers went with the run).
            // (`ended` is taken before the end: the server's own tick may see it first, at any later instant.)
            let ended = ContinuousClock.now
            #expect(try await harness.request(.DELETE, "/api/labs/\(lab.id)").status == 204)
            presentations.tick(isRunning: { harness.application.web.context.labs.lab($0) != nil }, now: .now)
            let waiting = try await harness.request(.GET, view)
            #expect(waiting.status == 200 && waiting.json["lab"] == nil && waiting.json["followers"] as? Int == 1, "\(waiting.text)")

            // Then just short of the gap it still runs; past it, it ends and says so
            presentations.tick(isRunning: { _ in false }, now: ended + LabPresentations.gap - .seconds(1))
            #expect(presentations.exists(try #require(FollowCode(parsing: code))) == true)
            presentations.tick(isRunning: { _ in false }, now: .now + LabPresentations.gap)
            #expect(presentations.exists(try #require(FollowCode(parsing: code))) == false)
            let gone = try await harness.request(.GET, view)
            #expect(gone.status == 404 && gone.text.contains("ended"), "\(gone.text)")
        }
    }

    @Test func aFollowerNotHeardFromIsDroppedAndThePresenterHearsOneFewer() async throws {
        try await WebHarness.with(configure: { LabPresentationTests.patient(&$0) }) { harness in
            let presentations = harness.application.web.context.labs.presentations
            let lab = try await LabPresentationTests.lab(harness)
            let code = try #require(try await harness.post("/api/labs/\(lab.id)/presentation", json: "").json["code"] as? String)
            let presenter = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(try #require(lab.viewers[0]))")
            let joined = try await LabPresentationTests.follow(code, harness)
            let key = try #require(joined["follower"] as? String)
            let watchers = LabPresentationTests.watchers(in: joined).compactMap { $0 }
            _ = try await presenter.next { $0.name == "presentation" && $0.json["followers"] as? Int == 1 }

            // A tick within the timeout keeps it; one past it drops it, its watchers with it
            presentations.tick(isRunning: { _ in true }, now: .now + LabPresentations.followerTimeout - .seconds(5))
            #expect(try await harness.request(.GET, "/api/lab-presentations/\(code)/followers/\(key)").status == 200)
            presentations.tick(isRunning: { _ in true }, now: .now + LabPresentations.followerTimeout + .seconds(1))
            #expect(try await harness.request(.GET, "/api/lab-presentations/\(code)/followers/\(key)").status == 404)
            let told = try await presenter.next { $0.name == "presentation" && $0.json["followers"] as? Int == 0 }
            #expect(told.json["role"] as? String == "presenter")
            // And its watchers are gone
            for watcher in watchers {
                #expect(harness.application.web.context.viewers.session(.init(watcher)) == nil)
                #expect(try await harness.post("/api/viewport", json: #"{"viewer": "\#(watcher)", "scrolling": true}"#).status == 404)
            }
        }
    }
}
