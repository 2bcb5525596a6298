/// Photos whose work another instance holds: which ones this instance waits for, and the state each
/// holder last reported, shown to this instance's viewers until this instance knows better.
///
/// A value type with no lock of its own: the pipeline keeps it behind its one lock. Empty in one
/// process, where `state(of:resting:)` is the resting state itself.
struct RemoteWork {
    /// Photos this instance wants but another holds: nothing starts for them here until it lets go.
    private var waiting: Set<Int> = []
    /// The transient state the holder reported (`downloading`, `downloaded`, `filtering`).
    private var reported: [Int: PhotoRecordState] = [:]

    /// Whether this instance waits for another to let go of photo `index`.
    func isWaiting(_ index: Int) -> Bool {
        waiting.contains(index)
    }

    mutating func wait(for index: Int) {
        waiting.insert(index)
    }

    mutating func stopWaiting(for index: Int) {
        waiting.remove(index)
    }

    /// How many photos this instance waits for.
    var waitingCount: Int { waiting.count }

    /// Remembers what the holder said photo `index` is going through.
    mutating func report(_ state: PhotoRecordState, for index: Int) {
        reported[index] = state
    }

    mutating func forgetReport(_ index: Int) {
        reported[index] = nil
    }

    /// Photo `index`'s state given its `resting` state here: the holder's report while it is
    /// further on, so a viewer never sees a row step back.
    func state(of index: Int, resting: PhotoRecordState) -> PhotoRecordState {
        guard !reported.isEmpty, let told = reported[index], told.progressRank > resting.progressRank else { return resting }
        return told
    }
}

extension PhotoRecordState {
    /// How far along the way to a sepia thumbnail the state is.
    var progressRank: Int {
        switch self {
        case .new: 0
        case .downloading: 1
        case .downloaded: 2
        case .filtering: 3
        case .filtered, .failed: 4
        }
    }
}
