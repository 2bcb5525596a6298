import Locking

extension EventOutbox {
    /// The most operations kept for a viewer's first stream: a first screen's downloads and filters
    /// (`FirstScreen.mostStartedRows` rows, a start and an end each) with room to spare.
    static let earlyOperationLimit = 128

    /// Keeps `operation` (an operation event done for this viewer) for its first stream, while it has
    /// not opened one: a page's first screen is worked on as the page is served, before its stream,
    /// and its timeline draws that work from these. Its age is not a delivery lag (`made` unknown).
    /// Past the limit the oldest go; once a stream attached, nothing is kept.
    func keepForFirstStream(_ operation: Payload) {
        var kept = operation
        kept.made = .unknown
        state.withLock { state in
            guard !state.everAttached else { return }
            state.earlyOperations.append(kept)
            if state.earlyOperations.count > Self.earlyOperationLimit { state.earlyOperations.removeFirst() }
        }
    }
}
