import Foundation

/// The JSON of lab presentations: the routes' answers and the `presentation` events of a lab's pages.
enum LabPresentationPayloads {
    /// `201` of `POST /api/labs/ID/presentation`.
    struct Started: Encodable {
        var code: String
        /// The link to share: the lab page, following this presentation.
        var follow: String
        var followers: Int
    }

    /// What a follower's page shows: the presenter's run (the lanes with this follower's watchers in
    /// place of the presenter's viewers, and the figures, the same for everyone) and where the presenter is.
    struct View: Encodable {
        var code: String
        /// The follower's key: its view and its leaving name it.
        var follower: String
        /// The presenter's run: a new one ("Run again") has new lanes.
        var run: Int
        var followers: Int
        var first: Int?
        var last: Int?
        var scrolling: Bool
        /// Nil between two runs of the presenter's.
        var lab: Lab?
    }

    /// A run as a follower sees it: no lab id (it ends the lab), no driver's viewer (it drives a lane).
    struct Lab: Encodable {
        var photos: Int
        var latencyMs: Int
        var bandwidth: Int
        var lanes: [LabPayloads.Lane]
        /// The presenter's summary of its last trace: followers show its table and figures.
        var summary: LabSummary?
    }

    /// `event: presentation` on a lab page: the count for the presenter; where the presenter is, its
    /// run and when it ended for a follower.
    struct Event: Encodable {
        enum Role: String, Encodable { case presenter, follower }
        var code: String
        var role: Role
        var followers: Int
        var run: Int
        var first: Int?
        var last: Int?
        var scrolling: Bool
        var ended: Bool

        init(_ presentation: LabPresentations.Presentation, role: Role, ended: Bool) {
            code = presentation.code.rawValue
            self.role = role
            followers = presentation.followers.count
            run = presentation.run
            first = presentation.position?.rows.lowerBound
            last = presentation.position?.rows.upperBound
            scrolling = presentation.position?.scrolling ?? false
            self.ended = ended
        }

        var event: EventOutbox.Payload { .init(name: .presentation, data: EventPayloads.json(self)) }
    }
}
