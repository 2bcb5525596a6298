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
}
