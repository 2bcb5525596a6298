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

    /// What a follower's page shows: the presentation as its `presentation` events tell it (where the
    /// presenter is, its run), with the follower's key and the presenter's run (the lanes with this
    /// follower's watchers in place of the presenter's viewers, and the figures, the same for everyone).
    struct View: Encodable {
        var presentation: PresentationPayload
        /// The follower's key: its view and its leaving name it.
        var follower: String
        /// Nil between two runs of the presenter's.
        var lab: Lab?

        private enum CodingKeys: String, CodingKey { case follower, lab }

        /// One object: the presentation's fields, the follower's key and the run.
        func encode(to encoder: any Encoder) throws {
            try presentation.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(follower, forKey: .follower)
            try container.encodeIfPresent(lab, forKey: .lab)
        }
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
}
