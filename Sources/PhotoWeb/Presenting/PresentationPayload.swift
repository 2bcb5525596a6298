import Foundation

/// `event: presentation`: what a presenter or a follower is told of the presentation it is in, on
/// the list or in a lab. A presenter hears how many follow; a follower where the presenter is, and
/// when it ended.
struct PresentationPayload: Encodable, Equatable, Sendable {
    enum Role: String, Encodable, Sendable { case presenter, follower }

    var code: String
    var role: Role
    /// People following now.
    var followers: Int
    /// The presenter's rows on screen (a follower's), when it has reported any.
    var first: Int?
    var last: Int?
    var scrolling: Bool
    /// The presenter stopped presenting or left: a follower keeps its place and goes on alone.
    var ended: Bool
    /// How many times the presenter started the list cold: a page that hears a larger count than it
    /// knew forgets the images it loaded and starts over (its rows come back as `new`). 0 in a lab.
    var coldStarts: Int
    /// A lab's part: the presenter's run (a new one, "Run again", has new lanes); absent on the list.
    var run: Int?

    /// The event, ready to enqueue; only the latest is sent to a slow reader.
    var event: EventOutbox.Payload {
        .init(name: .presentation, data: EventPayloads.json(self))
    }
}

extension PresentationPayload {
    /// The payload of presentation `code` for `role`, the presenter at `position`.
    init(
        code: FollowCode, role: Role, followers: Int, at position: PresenterPosition?, ended: Bool, coldStarts: Int = 0, run: Int? = nil
    ) {
        self.init(
            code: code.rawValue, role: role, followers: followers, first: position?.rows.lowerBound, last: position?.rows.upperBound,
            scrolling: position?.scrolling ?? false, ended: ended, coldStarts: coldStarts, run: run)
    }
}
