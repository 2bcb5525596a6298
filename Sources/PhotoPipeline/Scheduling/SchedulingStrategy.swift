/// How a viewer's work is driven; they are kept side by side so their waste can be compared.
public enum SchedulingStrategy: Sendable, Equatable {
    /// The naive approach: download and filter every row in list order as soon as the list loads,
    /// whatever is on screen.
    case eager
    /// The tutorial's approach: only the visible rows, suspended while scrolling.
    case visible
    /// The visible rows first, then `margin` rows beyond each edge of the viewport.
    case prefetch(margin: Int)
    /// The tutorial's first attempt, as far as a server can show it: every row that has ever been on
    /// screen, in the order it first appeared, never cancelled nor suspended. Its pipeline is meant to
    /// run one download and one filtration at a time (the lab gives its lane queues of width 1).
    case serial

    /// Rows beyond each edge of the viewport that are fetched ahead.
    var prefetchMargin: Int {
        if case .prefetch(let margin) = self { return max(0, margin) }
        return 0
    }
}
