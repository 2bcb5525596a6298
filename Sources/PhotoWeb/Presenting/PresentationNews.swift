import PhotoPipeline

/// Who is told what of a presentation: decided under the registry's lock, delivered after it.
struct PresentationNews: Sendable {
    var presenter: ViewerSession?
    var presenterUpdate: PresentationPayload?
    var followers: [ViewerSession] = []
    var followerUpdate: PresentationPayload?
    /// Where the presenter is: the followers' rows of interest move there.
    var position: PresenterPosition?
    /// A presenter's move (`Presentations.moved`): told to whoever follows it at the relay's next
    /// hand-on, in place of a move not yet handed on, so a presenter's reports, however many, cost
    /// its audience one batch a pace and no copy of its followers each.
    var mover: ViewerSession?

    /// Tells each one. The followers are told through their channel's `FollowerRelay`, at once: each
    /// gets the move first (it scrolls at once), then the rows that came into its interest, which fill
    /// in as they arrive, with what else the relay has for it (a stop's move in a write of its own).
    func deliver(on pipeline: PhotoPipeline?) {
        if let mover, let followerUpdate, let position, let relay = mover.channel.followerRelay {
            relay.move(.init(
                presenter: mover.id, payload: followerUpdate.event, rows: position.rows, pipeline: pipeline, stop: !position.scrolling))
        } else if let followerUpdate, let relay = followers.first?.channel.followerRelay {
            relay.tell(.init(
                followers: followers, payload: followerUpdate.event, whileFollowing: !followerUpdate.ended,
                rows: position?.rows, pipeline: pipeline, stop: position.map { !$0.scrolling } ?? false), now: true)
        } else {
            deliverEach(on: pipeline)
        }
        if let presenter, let presenterUpdate {
            presenter.outbox.enqueue(presenterUpdate.event)
        }
    }

    /// The followers' part of `deliver` on a channel without a relay: each told on its own.
    private func deliverEach(on pipeline: PhotoPipeline?) {
        if let followerUpdate {
            let event = followerUpdate.event
            for follower in followers { follower.outbox.enqueue(event) }
        }
        if let position, let pipeline, !followers.isEmpty {
            ViewerSession.moveInterest(of: followers, to: position.rows, margin: ViewerSession.followerMargin, on: pipeline)
        }
    }
}
