import PhotoPipeline

/// One viewport report of a viewer, parsed and checked (`POST /api/viewport` makes it): what the
/// viewer's session reacts to (`ViewerSession.receive`).
struct ViewportReport: Equatable, Sendable {
    var viewer: String
    var scrolling: Bool
    var rows: ClosedRange<Int>?
    /// The tab's own strategy, when it asks for one.
    var strategy: SchedulingStrategy? = nil
    /// The tab is hidden: no rows of it are on screen.
    var hidden = false
    /// The rows on screen in the middle of a person's scroll, which sends no rows until it stops (so
    /// nothing starts for rows it passes): told only to the followers of a presenter, so their lists
    /// move with the scroll, not only at its stop. Starts no work; with `scrolling` false (a reader's
    /// step, not told as a scroll) changes nothing of the viewer's own.
    var showing: ClosedRange<Int>? = nil
}
