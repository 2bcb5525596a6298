import PhotoPipeline

extension Presentations {
    /// A presentation's presenter and followers, as a tick sees them.
    struct Audience {
        let code: FollowCode
        let presenter: ViewerSession
        let followers: [ViewerSession]
    }

    /// The `queues` event of `presenter`'s queues now (its followers' panels show them).
    static func queues(of presenter: ViewerSession) -> EventOutbox.Payload? {
        guard let controller = presenter.existingController else { return nil }
        var queues = EventPayloads.Queues(controller.queueStatus, strategy: controller.strategy)
        queues.presenter = true
        return EventOutbox.Payload(name: .queues, data: EventPayloads.json(queues))
    }
}
