import PhotoPipeline

/// Who is told what of a lab presentation: decided under `LabPresentations`' lock, delivered after it.
/// A follower hears on its first watcher's stream (its lanes share the page's one connection), the
/// presenter on its lab's first server lane's.
struct LabPresentationNews: Sendable {
    var sends: [(ViewerSession, EventOutbox.Payload)] = []

    /// Every follower of `presentation` is told where the presenter is, or that it ended.
    mutating func tellFollowers(of presentation: LabPresentations.Presentation, ended: Bool) {
        let payload = Self.payload(of: presentation, role: .follower, ended: ended).event
        for follower in presentation.followers.values {
            if let watcher = follower.watchers.lazy.compactMap({ $0 }).first { sends.append((watcher, payload)) }
        }
    }

    /// The presenter is told how many follow (or that its presentation ended).
    mutating func tellPresenter(of presentation: LabPresentations.Presentation, ended: Bool = false) {
        guard let driver = presentation.driver else { return }
        sends.append((driver, Self.payload(of: presentation, role: .presenter, ended: ended).event))
    }

    /// `event: presentation` on a lab page: the count for the presenter; where the presenter is, its
    /// run and when it ended for a follower.
    static func payload(of presentation: LabPresentations.Presentation, role: PresentationPayload.Role, ended: Bool) -> PresentationPayload {
        PresentationPayload(
            code: presentation.code, role: role, followers: presentation.followers.count, at: presentation.position, ended: ended,
            run: presentation.run)
    }

    func deliver() {
        for (session, payload) in sends { session.outbox.enqueue(payload) }
    }
}
