import Locking
import PhotoPipeline

/// Starting the list cold for a presentation's audience (issue 37): only its presenter may, only while
/// everyone else on the list follows it (nobody else loses work it has on screen), and at most once
/// per `Settings.coldStartInterval` on the whole server.
extension Presentations {
    /// The presenter of `code` and the ids of its followers, when `viewer` presents it; else the same
    /// 404 for a code that does not exist, one this viewer does not present, and a follow code sent as
    /// a viewer.
    func coldStartAudience(_ code: FollowCode, by viewer: ViewerID) throws(APIError) -> (presenter: ViewerSession, followers: Set<ViewerID>) {
        let found = state.withLock { state -> (ViewerSession, Set<ViewerID>)? in
            guard let presentation = state.codes[code], presentation.presenter.id == viewer else { return nil }
            return (presentation.presenter, Set(presentation.followers.keys))
        }
        guard let found else { throw Self.notPresenting(code, viewer) }
        return found
    }

    /// Those of `viewers` (the list's) that would lose their work: neither the presenter nor one of
    /// its `followers`, not gone, with rows of their own on screen (they reported a viewport) and a
    /// stream (a page that went away, or reloaded, sees nothing; a script that never reported has no
    /// rows to lose). Asks sessions, controllers and outboxes: call it with no lock held.
    static func bystanders(among viewers: [ViewerSession], presenter: ViewerID, followers: Set<ViewerID>) -> [ViewerSession] {
        viewers.filter { viewer in
            viewer.id != presenter && !followers.contains(viewer.id) && !viewer.isClosed
                && viewer.existingController?.visibleRows != nil && viewer.outbox.detachedSince == nil
        }
    }

    /// Counts a cold start of `code` by its presenter `viewer` at `now`: the news tells its presenter
    /// and followers to start over (deliver it once the list is cold). A 429 within
    /// `coldStartInterval` of the last one.
    func recordColdStart(_ code: FollowCode, by viewer: ViewerID, now: ContinuousClock.Instant = .now) throws(APIError) -> PresentationNews {
        let interval = settings.coldStartInterval
        let outcome = state.withLock { state -> Result<PresentationNews, APIError> in
            guard var presentation = state.codes[code], presentation.presenter.id == viewer else {
                return .failure(Self.notPresenting(code, viewer))
            }
            if let last = state.lastColdStart, now - last < interval {
                let seconds = Int((interval - (now - last)).components.seconds) + 1
                return .failure(.tooManyRequests(
                    "the list started cold moments ago; it starts cold at most once every \(interval.components.seconds) s: try again in \(seconds) s",
                    retryAfter: seconds))
            }
            state.lastColdStart = now
            presentation.coldStarts += 1
            state.codes[code] = presentation
            var news = Self.presenterNews(presentation)
            news.followers = Array(presentation.followers.values)
            news.followerUpdate = Self.followerPayload(presentation, ended: false)
            return .success(news)
        }
        return try outcome.get()
    }

    private static func notPresenting(_ code: FollowCode, _ viewer: ViewerID) -> APIError {
        .notFound("viewer \(viewer) presents no presentation \(code): only its presenter starts the list cold")
    }
}
