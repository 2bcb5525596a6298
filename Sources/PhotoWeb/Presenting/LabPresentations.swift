import Foundation
import Locking
import PhotoPipeline

/// Presented labs (issue 37): a presenter's lab run, watched live by the people it shares its follow
/// link (`/lab?follow=CODE`) with. A follower gets one watcher per server lane, a viewer of that
/// lane's channel that hears its events (every row, every operation) and never drives it: the viewport
/// route refuses a watcher (`reported`), so a follower adds no demand and changes no figure. The
/// presenter's scroll (its first server lane's reports) reaches the followers as `presentation`
/// events, and the presenter's next run ("Run again", a trace on a used lab) carries the presentation on.
///
/// The presenter's credential is its lab's id, which followers never see; the follow code, a
/// follower's key and its watchers' ids grant nothing but watching.
///
/// Lock order: a leaf. Viewers are made and closed, labs looked up and outboxes written after it is released.
final class LabPresentations: Sendable {
    /// How long a presentation whose lab ended waits for its presenter's next run before it ends.
    static let gap: Duration = .seconds(15)
    /// A follower whose page has not asked for its view (once a second) this long has left.
    static let followerTimeout: Duration = .seconds(75)

    struct Follower {
        let key: FollowCode
        let client: String?
        /// The run its watchers watch (0: none yet).
        var run = 0
        /// Its watcher of each lane (nil for the browser lane) of run `run`.
        var watchers: [ViewerSession?] = []
        var lastSeen: ContinuousClock.Instant
        /// Its follow was admitted to the presentation's room (`LabPresentations+Room`).
        var inRoom = false
    }

    struct Presentation {
        let code: FollowCode
        /// The presenter's lab now, or its last one while `lab` is nil (between two runs).
        var labID: String
        var lab: Lab?
        var run = 1
        var followers: [FollowCode: Follower] = [:]
        var position: PresenterPosition?
        var labGoneSince: ContinuousClock.Instant?

        /// The viewer whose reports are the presenter's scroll: the lab's first server lane's.
        var driver: ViewerSession? { lab?.lanes.lazy.compactMap(\.viewer).first }
    }

    struct State {
        var codes = PresentationCodes<Presentation>()
        var codeOfLab: [String: FollowCode] = [:]
        var codeOfDriver: [ViewerID: FollowCode] = [:]
        /// Every follower's watcher until it is closed (an ended presentation's too): none may report.
        var watchers: [ViewerID: ViewerSession] = [:]
    }

    let viewers: ViewerRegistry
    let state = Locked(State())

    init(viewers: ViewerRegistry) {
        self.viewers = viewers
    }

    /// Presents `lab` (the same presentation again when it presents it already).
    func start(_ lab: Lab) -> (code: FollowCode, followers: Int) {
        state.withLock { state in
            if let code = state.codeOfLab[lab.id], let presentation = state.codes[code] {
                return (code, presentation.followers.count)
            }
            let presentation = Presentation(code: .random(), labID: lab.id, lab: lab)
            Self.place(presentation, in: &state)
            return (presentation.code, 0)
        }
    }

    /// The presentation of lab `previous` (running, or ended within `gap`) carries on with `lab`, the
    /// presenter's next run: its followers' pages see the new run at their next view. A 404 when
    /// `previous` presents nothing (knowing that id is what makes one the presenter).
    func carryOn(from previous: String, to lab: Lab) throws(APIError) -> (code: FollowCode, followers: Int) {
        let outcome = state.withLock { state -> Result<(FollowCode, Int, [ViewerSession]), APIError> in
            guard let code = state.codeOfLab[previous], var presentation = state.codes[code] else {
                return .failure(.notFound("lab \(previous) presents nothing (its presentation ended, or never was)"))
            }
            // The same lab again (a page that asks twice): the same run.
            if previous == lab.id { return .success((code, presentation.followers.count, [])) }
            if let other = state.codeOfLab[lab.id], other != code {
                return .failure(.conflict("lab \(lab.id) is presented already, under another follow link"))
            }
            Self.unplace(presentation, in: &state)
            let stale = presentation.followers.values.flatMap { $0.watchers.compactMap { $0 } }
            presentation.labID = lab.id
            presentation.lab = lab
            presentation.run += 1
            presentation.position = nil
            presentation.labGoneSince = nil
            Self.place(presentation, in: &state)
            return .success((code, presentation.followers.count, stale))
        }
        let (code, followers, stale) = try outcome.get()
        // The last run's watchers go (with its lab, if it ended already): a follower's next view makes new ones.
        stale.forEach { viewers.remove($0.id)?.close() }
        return (code, followers)
    }

    /// Ends the presentation of lab `labID` (its presenter's, or its last run's): its followers are told and keep what they show.
    func stop(labID: String) throws(APIError) {
        let news = state.withLock { state -> LabPresentationNews? in
            guard let code = state.codeOfLab[labID], let presentation = state.codes[code] else { return nil }
            return Self.end(presentation, in: &state)
        }
        guard let news else { throw .notFound("lab \(labID) presents nothing") }
        news.deliver()
    }

    /// `report` came for `session` (`POST /api/viewport`): a follower's watcher is refused as an
    /// unknown viewer would be; a presented lab's driver has its place told to the followers.
    func reported(_ report: ViewportReport, by session: ViewerSession) throws(APIError) {
        let outcome = state.withLock { state -> Result<LabPresentationNews?, APIError> in
            if state.watchers[session.id] != nil {
                return .failure(.notFound("unknown viewer \(session.id): a lab follower's watcher only watches, it reports nothing"))
            }
            guard !report.hidden, let code = state.codeOfDriver[session.id], var presentation = state.codes[code],
                  let rows = report.rows ?? presentation.position?.rows else { return .success(nil) }
            presentation.position = PresenterPosition(rows: rows, scrolling: report.scrolling)
            state.codes[code] = presentation
            var news = LabPresentationNews()
            news.tellFollowers(of: presentation, ended: false)
            return .success(news)
        }
        try outcome.get()?.deliver()
    }

    /// Where the presentation `code` stands for a page asking: running, ended lately, or unknown (`nil`).
    func exists(_ code: FollowCode) -> Bool? {
        state.withLock { state in state.codes[code] != nil ? true : state.codes.hasEnded(code) ? false : nil }
    }

    // MARK: - Under the lock

    static func place(_ presentation: Presentation, in state: inout State) {
        state.codes[presentation.code] = presentation
        state.codeOfLab[presentation.labID] = presentation.code
        if let driver = presentation.driver { state.codeOfDriver[driver.id] = presentation.code }
    }

    static func unplace(_ presentation: Presentation, in state: inout State) {
        state.codeOfLab[presentation.labID] = nil
        if let driver = presentation.driver { state.codeOfDriver[driver.id] = nil }
    }

    static func end(_ presentation: Presentation, in state: inout State) -> LabPresentationNews {
        unplace(presentation, in: &state)
        state.codes.end(presentation.code)
        var news = LabPresentationNews()
        news.tellFollowers(of: presentation, ended: true)
        var ended = presentation
        ended.followers = [:]
        news.tellPresenter(of: ended, ended: true)
        return news
    }
}
