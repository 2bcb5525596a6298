import PhotoPipeline

/// Who is told what of a lab presentation: decided under `LabPresentations`' lock, delivered after it.
/// A follower hears on its first watcher's stream (its lanes share the page's one connection), the
/// presenter on its lab's first server lane's.
struct LabPresentationNews: Sendable {
    var sends: [(ViewerSession, EventOutbox.Payload)] = []

    /// Every follower of `presentation` is told where the presenter is, or that it ended.
    mutating func tellFollowers(of presentation: LabPresentations.Presentation, ended: Bool) {
        let payload = LabPresentationPayloads.Event(presentation, role: .follower, ended: ended).event
        for follower in presentation.followers.values {
            if let watcher = follower.watchers.lazy.compactMap({ $0 }).first { sends.append((watcher, payload)) }
        }
    }

    /// The presenter is told how many follow (or that its presentation ended).
    mutating func tellPresenter(of presentation: LabPresentations.Presentation, ended: Bool = false) {
        guard let driver = presentation.driver else { return }
        sends.append((driver, LabPresentationPayloads.Event(presentation, role: .presenter, ended: ended).event))
    }

    func deliver() {
        for (session, payload) in sends { session.outbox.enqueue(payload) }
    }
}
