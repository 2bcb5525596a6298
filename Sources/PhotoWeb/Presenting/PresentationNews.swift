import PhotoPipeline

/// Who is told what of a presentation: decided under the registry's lock, delivered after it.
struct PresentationNews: Sendable {
    var presenter: ViewerSession?
    var presenterUpdate: PresentationPayload?
    var followers: [ViewerSession] = []
    var followerUpdate: PresentationPayload?
    /// Where the presenter is: the followers' rows of interest move there.
    var position: PresenterPosition?

    /// Tells each one. The followers are sent the rows that came into their interest first, so
    /// the rows they move to are current when the move arrives.
    func deliver(on pipeline: PhotoPipeline?) {
        if let position, let pipeline, !followers.isEmpty {
            ViewerSession.moveInterest(of: followers, to: position.rows, on: pipeline)
        }
        if let followerUpdate {
            let event = followerUpdate.event
            for follower in followers { follower.outbox.enqueue(event) }
        }
        if let presenter, let presenterUpdate {
            presenter.outbox.enqueue(presenterUpdate.event)
        }
    }
}
