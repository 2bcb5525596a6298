import PhotoPipeline

extension PhotoChannel {
    /// Sends `payload` (news for every viewer: the totals) to `sessions`, the followers among them
    /// with the relay's next hand-on (in the same write as their rows), the others at once.
    func sendToAll(_ payload: EventOutbox.Payload, _ sessions: [ViewerSession]) {
        let following = presentations?.presenterOfFollowers() ?? [:]
        guard let followerRelay, !following.isEmpty else { return sessions.forEach { $0.outbox.enqueue(payload) } }
        var followers: [ViewerSession] = []
        for session in sessions {
            if following[session.id] != nil { followers.append(session) } else { session.outbox.enqueue(payload) }
        }
        // Sent even to one that breaks away before the hand-on: the totals are everyone's.
        followerRelay.tell(.init(followers: followers, payload: payload, whileFollowing: false), now: false)
    }
}
