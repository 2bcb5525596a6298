import PhotoPipeline

extension FollowerRelay {
    /// News for some followers of one presentation, handed on with the list's events: a move (its
    /// `presentation` event, and where their rows of interest go), a cold start, the end, the
    /// presenter's queues.
    struct Told: Sendable {
        var followers: [ViewerSession]
        var payload: EventOutbox.Payload
        /// Sent only to those that still follow at the hand-on (one that broke away meanwhile is on
        /// its own; its own report moved its rows). False for the end: its followers follow no more.
        var whileFollowing = true
        /// The presenter's rows on screen: the followers' rows of interest move around them
        /// (`ViewerSession.followerMargin` beyond each edge), read from `pipeline`.
        var rows: ClosedRange<Int>? = nil
        var pipeline: PhotoPipeline? = nil
        /// A move to where the presenter stopped: its news is written ahead of its rows
        /// (`FollowerRelay.handOn`). A move in the middle of a scroll, every 100 ms, goes in one write.
        var stop = false
    }

    /// Tells `followers` (of one presentation) `payload` with their channel's next hand-on (the
    /// presenter's queues: no hurry), or at once on a channel without a relay.
    static func tell(_ payload: EventOutbox.Payload, to followers: [ViewerSession]) {
        guard let relay = followers.first?.channel.followerRelay else {
            return followers.forEach { $0.outbox.enqueue(payload) }
        }
        relay.tell(Told(followers: followers, payload: payload), now: false)
    }
}
