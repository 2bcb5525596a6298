import Foundation
import Locking
import PhotoPipeline

/// The presentations on the server: a presenter's viewport, followed live by other viewers (the
/// people a demo URL is shown to). The presenter's work is done once for everyone: a follower adds
/// no demand while it follows (it reports nothing; its rows of interest move with the presenter's),
/// and is an ordinary viewer again at its own first report.
///
/// Lock order: a leaf. What the registry decides under its lock (who is told what) is carried out
/// after it is released (`PresentationNews.deliver`).
final class Presentations: Sendable {
    struct Settings: Sendable {
        /// Viewers following one presentation at most.
        var followersPerPresentation = 1_000
        /// Presentations one client (an address, an IPv6 /64) runs at once.
        var presentationsPerClient = 2
        /// How often followers are handed the list's events (`FollowerRelay`): a follower's screen
        /// shows the presenter's rows (each row's latest state), not every progress step of every row.
        var followerPace: Duration = .milliseconds(40)
        /// The least time between two cold starts of the list (`Presentations+Cold`), whoever asks.
        var coldStartInterval: Duration = .seconds(10)
        /// Followers a presentation's link admits without a new viewer's token of their address
        /// (`--room-size`): a room behind one address (`Presentations+Room`).
        var roomSize = 200
    }

    struct Presentation {
        let code: FollowCode
        let presenter: ViewerSession
        var followers: [ViewerID: ViewerSession] = [:]
        var position: PresenterPosition?
        /// How many times its presenter started the list cold: a page that hears a larger count starts over.
        var coldStarts = 0
        /// The viewers its follow link admitted to its room (`Presentations+Room`), while they live.
        var room: [ViewerID: ViewerSession] = [:]
        /// Its followers whose stream was open at the last tick (the presenter's count: a follower whose
        /// stream was refused, or never opened, receives nothing and is not counted).
        var receiving: Set<ViewerID> = []
    }

    struct State {
        var codes = PresentationCodes<Presentation>()
        var codeOfPresenter: [ViewerID: FollowCode] = [:]
        var codeOfFollower: [ViewerID: FollowCode] = [:]
        /// Each follower's presenter: whose story its screen tells (read by the channel's forwarder).
        var presenterOfFollower: [ViewerID: ViewerID] = [:] {
            didSet { followersVersion &+= 1 }
        }
        /// Counts the changes to `presenterOfFollower`, so the forwarder works its audience out only then.
        private(set) var followersVersion: UInt64 = 0
        /// When the list last started cold (by any presenter).
        var lastColdStart: ContinuousClock.Instant?
        /// The room members of each client, over every presentation (`Presentations+Room`).
        var roomPlaces: [String: Int] = [:]
    }

    let settings: Settings
    let state = Locked(State())
    /// The presenter's queues last sent to each presentation's followers (encoded). Lock order: a leaf.
    private let sentQueues = Locked([FollowCode: Data]())

    /// Records `queues` as sent to `code`'s followers; false when they are what was sent last.
    private func queuesChanged(_ code: FollowCode, to queues: Data) -> Bool {
        sentQueues.withLock { sent in
            guard sent[code] != queues else { return false }
            sent[code] = queues
            return true
        }
    }

    init(settings: Settings = .init()) {
        self.settings = settings
    }

    /// Starts presenting `presenter`'s viewport (or returns the presentation it runs already).
    func start(by presenter: ViewerSession) throws(APIError) -> (FollowCode, PresentationNews) {
        let outcome = state.withLock { state -> Result<(FollowCode, PresentationNews), APIError> in
            if let code = state.codeOfPresenter[presenter.id], let presentation = state.codes[code] {
                return .success((code, Self.presenterNews(presentation)))
            }
            if let client = presenter.client {
                let running = state.codes.running.filter { $0.presenter.client == client }.count
                guard running < settings.presentationsPerClient else {
                    return .failure(.tooManyRequests(
                        "\(client) presents \(running) presentations, a client's most (--presentations-per-client); stop one first",
                        retryAfter: 10))
                }
            }
            // A follower that starts presenting follows nobody any more.
            Self.unfollow(presenter.id, in: &state)
            let presentation = Presentation(code: .random(), presenter: presenter)
            state.codes[presentation.code] = presentation
            state.codeOfPresenter[presenter.id] = presentation.code
            return .success((presentation.code, Self.presenterNews(presentation)))
        }
        return try outcome.get()
    }

    /// Ends the presentation `code` if `viewer` presents it; its followers are told and keep their place.
    func end(_ code: FollowCode, by viewer: ViewerID) throws(APIError) -> PresentationNews {
        let news = state.withLock { state -> PresentationNews? in
            guard let presentation = state.codes[code], presentation.presenter.id == viewer else { return nil }
            return Self.end(presentation, in: &state)
        }
        // The same answer for a code that does not exist and one this viewer does not present.
        guard let news else { throw .notFound("viewer \(viewer) presents no presentation \(code)") }
        return news
    }

    /// Makes `follower` follow `code`: where the presenter is comes with the news. `inRoom`: its
    /// follow link admitted it to the room (`Presentations+Room`): a 429 when the room filled meanwhile.
    func follow(_ code: FollowCode, by follower: ViewerSession, inRoom: Bool = false) throws(APIError) -> PresentationNews {
        let outcome = state.withLock { state -> Result<PresentationNews, APIError> in
            guard var presentation = state.codes[code] else {
                return .failure(state.codes.gone(code))
            }
            guard presentation.presenter.id != follower.id else {
                return .failure(.conflict("a presenter cannot follow its own presentation"))
            }
            if presentation.followers[follower.id] == nil {
                guard presentation.followers.count < settings.followersPerPresentation else {
                    return .failure(.tooManyRequests(
                        "this presentation has \(settings.followersPerPresentation) followers, its most (--followers-per-presentation)",
                        retryAfter: 30))
                }
                if inRoom {
                    guard presentation.room.count < settings.roomSize else { return .failure(Self.roomFull(settings.roomSize)) }
                    presentation.room[follower.id] = follower
                    Self.entered([follower], in: &state)
                }
                Self.unfollow(follower.id, in: &state)
                presentation.followers[follower.id] = follower
                state.codes[code] = presentation
                state.codeOfFollower[follower.id] = code
                state.presenterOfFollower[follower.id] = presentation.presenter.id
            }
            var news = Self.presenterNews(presentation)
            news.followers = [follower]
            news.followerUpdate = Self.followerPayload(presentation, ended: false)
            news.position = presentation.position
            return .success(news)
        }
        return try outcome.get()
    }

    /// `viewer` reported a viewport of its own: if it followed, it is on its own now (its presenter
    /// hears one follower fewer). Nil when it followed nobody.
    func breakAway(_ viewer: ViewerID) -> PresentationNews? {
        state.withLock { state in
            guard let code = Self.unfollow(viewer, in: &state), let presentation = state.codes[code] else { return nil }
            return Self.presenterNews(presentation)
        }
    }

    /// `presenter` reported `position`: its followers are told (nil when it presents nothing).
    func moved(_ presenter: ViewerID, to position: PresenterPosition) -> PresentationNews? {
        state.withLock { state in
            guard let code = state.codeOfPresenter[presenter], var presentation = state.codes[code] else { return nil }
            presentation.position = position
            state.codes[code] = presentation
            // Nobody to tell: nothing for the relay. Its followers are found at the hand-on, not copied here.
            guard !presentation.followers.isEmpty else { return nil }
            var news = PresentationNews()
            news.mover = presentation.presenter
            news.followerUpdate = Self.followerPayload(presentation, ended: false)
            news.position = position
            return news
        }
    }

    /// Drops followers that left and ends presentations whose presenter left; returns who to tell,
    /// and each running presentation's presenter and followers (the followers' panels show the
    /// presenter's queues).
    func sweep() -> (news: [PresentationNews], audiences: [Audience]) {
        state.withLock { state in
            var news: [PresentationNews] = []
            var audiences: [Audience] = []
            for presentation in Array(state.codes.running) {
                if presentation.presenter.isClosed {
                    news.append(Self.end(presentation, in: &state))
                    continue
                }
                let gone = presentation.followers.values.filter(\.isClosed)
                for follower in gone { Self.unfollow(follower.id, in: &state) }
                let left = presentation.room.values.filter(\.isClosed)
                for member in left { state.codes[presentation.code]?.room[member.id] = nil }
                Self.left(left, in: &state)
                guard let current = state.codes[presentation.code] else { continue }
                audiences.append(Audience(code: current.code, presenter: current.presenter, followers: Array(current.followers.values)))
            }
            return (news, audiences)
        }
    }

    /// What a new stream of `session` starts with: its presentation, if it presents or follows one,
    /// and for a follower its presenter's queues (its panel shows the presenter's story).
    func snapshot(for session: ViewerSession) -> [EventOutbox.Payload] {
        let (payload, presenter) = state.withLock { state -> (PresentationPayload?, ViewerSession?) in
            if let code = state.codeOfPresenter[session.id], let presentation = state.codes[code] {
                return (Self.presenterPayload(presentation), nil)
            }
            if let code = state.codeOfFollower[session.id], let presentation = state.codes[code] {
                return (Self.followerPayload(presentation, ended: false), presentation.presenter)
            }
            return (nil, nil)
        }
        // Read after the lock: the presenter's controller takes the pipeline's.
        let queues = presenter.flatMap(Self.queues(of:))
        return [payload?.event, queues].compactMap { $0 }
    }

    /// Each follower's presenter now (a copy that costs nothing until the registry changes): the
    /// forwarder tells a follower of its presenter's work as `mine`, and serves followers last.
    func presenterOfFollowers() -> [ViewerID: ViewerID] {
        state.withLock { $0.presenterOfFollower }
    }

    /// Counts every change to who follows whom.
    var followersVersion: UInt64 {
        state.withLock { $0.followersVersion }
    }

    /// Where the presenter of `code` is, if it runs and has reported.
    func position(of code: FollowCode) -> PresenterPosition? {
        state.withLock { $0.codes[code]?.position }
    }

    /// The rows `presenter` last reported, if it presents.
    func lastRows(of presenter: ViewerID) -> ClosedRange<Int>? {
        state.withLock { state in state.codeOfPresenter[presenter].flatMap { state.codes[$0]?.position?.rows } }
    }

    // MARK: - Under the lock

    @discardableResult
    private static func unfollow(_ viewer: ViewerID, in state: inout State) -> FollowCode? {
        guard let code = state.codeOfFollower.removeValue(forKey: viewer) else { return nil }
        state.codes[code]?.followers[viewer] = nil
        state.codes[code]?.receiving.remove(viewer)
        state.presenterOfFollower[viewer] = nil
        return code
    }

    private static func end(_ presentation: Presentation, in state: inout State) -> PresentationNews {
        state.codes.end(presentation.code)
        left(presentation.room.values, in: &state)
        state.codeOfPresenter[presentation.presenter.id] = nil
        for id in presentation.followers.keys {
            state.codeOfFollower[id] = nil
            state.presenterOfFollower[id] = nil
        }
        var ended = presentation
        ended.followers = [:]
        var news = PresentationNews()
        news.presenter = presentation.presenter
        news.presenterUpdate = presenterPayload(ended, ended: true)
        news.followers = Array(presentation.followers.values)
        news.followerUpdate = followerPayload(presentation, ended: true)
        return news
    }

    /// News for a presentation's presenter only: how many follow it now.
    static func presenterNews(_ presentation: Presentation) -> PresentationNews {
        var news = PresentationNews()
        news.presenter = presentation.presenter
        news.presenterUpdate = presenterPayload(presentation)
        return news
    }

    static func presenterPayload(_ presentation: Presentation, ended: Bool = false) -> PresentationPayload {
        PresentationPayload(
            code: presentation.code, role: .presenter, followers: presentation.receiving.count, at: presentation.position,
            ended: ended, coldStarts: presentation.coldStarts)
    }

    static func followerPayload(_ presentation: Presentation, ended: Bool) -> PresentationPayload {
        var payload = presenterPayload(presentation, ended: ended)
        payload.role = .follower
        return payload
    }
}

extension Presentations {
    /// `presenter` reported: with rows, its followers move there; a scroll begun without rows is
    /// told at the rows it had.
    func moved(_ presenter: ViewerID, to rows: ClosedRange<Int>?, scrolling: Bool) -> PresentationNews? {
        guard let rows = rows ?? lastRows(of: presenter) else { return nil }
        return moved(presenter, to: PresenterPosition(rows: rows, scrolling: scrolling))
    }

    /// Each tick: followers that left are dropped, presentations whose presenter left end (their
    /// followers are told), and every follower's panel shows its presenter's queues when they changed
    /// (a new follower had them in its snapshot).
    func tick(on pipeline: PhotoPipeline?) {
        let (news, audiences) = sweep()
        news.forEach { $0.deliver(on: nil) }
        // The presenter's count: its followers whose stream is open now (asked with no lock held).
        for audience in audiences {
            let receiving = audience.followers.filter { $0.outbox.hasStreamed && $0.outbox.detachedSince == nil }
            counted(Set(receiving.map(\.id)), for: audience.code)?.deliver(on: nil)
        }
        // Forget what was sent to presentations that ended or have nobody following.
        let live = Set(audiences.filter { !$0.followers.isEmpty }.map(\.code))
        sentQueues.withLock { sent in sent = sent.filter { live.contains($0.key) } }
        for audience in audiences where !audience.followers.isEmpty {
            guard let queues = Self.queues(of: audience.presenter), queuesChanged(audience.code, to: queues.data) else { continue }
            FollowerRelay.tell(queues, to: audience.followers)
        }
    }
}
