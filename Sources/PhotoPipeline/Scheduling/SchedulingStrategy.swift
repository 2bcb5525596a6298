/// How a viewer's work is driven; the three are kept side by side so their waste can be compared.
public enum SchedulingStrategy: Sendable, Equatable {
    /// The naive approach: download and filter every row in list order as soon as the list loads,
    /// whatever is on screen.
    case eager
    /// The tutorial's approach: only the visible rows, suspended while scrolling.
    case visible
    /// The visible rows first, then `margin` rows beyond each edge of the viewport.
    case prefetch(margin: Int)

    /// Rows beyond each edge of the viewport that are fetched ahead.
    var prefetchMargin: Int {
        if case .prefetch(let margin) = self { return max(0, margin) }
        return 0
    }
}
