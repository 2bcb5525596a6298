import Locking
import PhotoPipeline

extension FollowerRelay {
    /// A presenter's latest move, waiting for the next hand-on: told to every follower of `presenter`
    /// then (the audience the hand-on is given, not a copy made at each report).
    struct Move: Sendable {
        let presenter: ViewerID
        /// The followers' `presentation` event.
        let payload: EventOutbox.Payload
        /// The presenter's rows on screen: its followers' rows of interest move around them.
        let rows: ClosedRange<Int>
        let pipeline: PhotoPipeline?
        /// Where the presenter stopped: its news goes ahead of the rows (`handOn`).
        let stop: Bool
    }

    /// Tells `move` with the next hand-on, which comes at once unless the last was less than the
    /// audience's move pace ago (`movePace(for:)`). A move of the same presenter not yet handed on is
    /// replaced: the followers see where the presenter is, not every report it sent on the way, and
    /// a presenter that reports as fast as it is answered costs its audience no more than one that
    /// reports every 100 ms.
    func move(_ move: Move) {
        gathered.withLock { $0.moves[move.presenter] = move }
        wake()
    }

    /// The least time between two hand-ons for `followers` followers, a move's included: a hand-on
    /// is a write per follower, so a presenter's reports make at most one batch a pace (`pace(for:)`,
    /// 40 ms up to 160 followers, 250 ms for a thousand). A move after a pause goes at once; a page
    /// reports every 100 ms while it scrolls, so up to 400 followers get each move of a scroll as it comes.
    func movePace(for followers: Int) -> Duration {
        max(leastMovePace, pacePerFollower * followers)
    }

    /// Each follower's news with its presenter's move, if it has one in `moves`, added last (after
    /// the news told before it), and the moves by follower.
    static func news(
        of told: [Told], moves: [ViewerID: Move], followers: [ViewerSession], presenters: [ViewerID: ViewerID]
    ) -> (news: [ViewerID: [EventOutbox.Payload]], moves: [ViewerID: Told]) {
        var news: [ViewerID: [EventOutbox.Payload]] = [:]
        var moved: [ViewerID: Told] = [:]
        for told in told {
            for follower in told.followers where !told.whileFollowing || presenters[follower.id] != nil {
                news[follower.id, default: []].append(told.payload)
                if told.rows != nil { moved[follower.id] = told }
            }
        }
        guard !moves.isEmpty else { return (news, moved) }
        for follower in followers {
            guard let presenter = presenters[follower.id], let move = moves[presenter] else { continue }
            news[follower.id, default: []].append(move.payload)
            moved[follower.id] = Told(
                followers: [], payload: move.payload, rows: move.rows, pipeline: move.pipeline, stop: move.stop)
        }
        return (news, moved)
    }
}
