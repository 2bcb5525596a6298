import Foundation

/// How much a viewer wants a row; the queue runs higher priorities first and, within one priority,
/// in the order rows were asked for (top to bottom).
public enum RowPriority: Int, Sendable, Comparable, CaseIterable {
    /// Everything else, in list order: the eager strategy.
    case background = 0
    /// Rows just outside the viewport.
    case prefetch = 1
    /// Rows on screen.
    case visible = 2

    public static func < (lhs: RowPriority, rhs: RowPriority) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    var queuePriority: Operation.QueuePriority {
        switch self {
        case .background: .veryLow
        case .prefetch: .normal
        case .visible: .veryHigh
        }
    }
}
