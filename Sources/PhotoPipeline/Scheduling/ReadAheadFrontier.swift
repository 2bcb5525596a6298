/// The farthest row a reader has been read ahead to, in its direction of travel, kept across reports
/// so that reading ahead is never given up while the reader keeps reading: what is cancelled is what
/// the reader moved away from (rows behind it, or everything after a flick or a turn), never rows it
/// is moving towards.
///
/// `ScrollMotion`'s depth follows the measured pace, which wobbles from one report to the next (a
/// stop report comes 50 ms after the last in-scroll report and reads a slightly lower pace); without
/// this, every wobble released the farthest rows and aborted their transfers, and the reader reached
/// those rows seconds later and had them fetched again (issue 29).
///
/// A value type with no lock of its own: its controller keeps it behind a mutex.
struct ReadAheadFrontier: Sendable {
    /// The direction the frontier was set for (+1 down, -1 up), and the row it reached.
    private var edge: (direction: Int, row: Int)?

    /// The read-ahead to use for `visible`: `proposed` (from `ScrollMotion`), extended to the frontier
    /// when the viewer still moves the same way; the frontier follows. A flick clears it.
    mutating func readAhead(
        of visible: ClosedRange<Int>, kind: ScrollMotion.Kind, proposed: (direction: Int, depth: Int)
    ) -> (direction: Int, depth: Int) {
        if case .flicking = kind {
            edge = nil
            return proposed
        }
        let direction = proposed.direction < 0 ? -1 : 1
        var row = direction > 0 ? visible.upperBound + proposed.depth : visible.lowerBound - proposed.depth
        if let edge, edge.direction == direction {
            row = direction > 0 ? max(row, edge.row) : min(row, edge.row)
        }
        edge = (direction, row)
        let depth = direction > 0 ? row - visible.upperBound : visible.lowerBound - row
        return (direction, max(0, depth))
    }
}
