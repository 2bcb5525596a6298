/// How many photos of the list are in each state, kept as states change, so a viewer can be told the
/// whole list's counts without anyone walking the list. A value type behind the pipeline's lock.
struct StateCensus: Equatable {
    /// Every state's name, in the order a photo goes through them.
    static let names = ["new", "downloading", "downloaded", "filtering", "filtered", "failed"]

    private var counts: [String: Int] = [:]

    /// No photos.
    init() {}

    /// Counts photo states `states` (each photo's state at the start).
    init(_ states: [PhotoRecordState]) {
        for state in states { counts[state.name, default: 0] += 1 }
    }

    /// One photo went from state `before` to state `now` (states that differ only by progress do not count).
    mutating func move(from before: PhotoRecordState, to now: PhotoRecordState) {
        guard before.name != now.name else { return }
        counts[before.name, default: 0] -= 1
        counts[now.name, default: 0] += 1
    }

    /// The count of each state's name (`new`, `downloading`, ...), those at zero included.
    var byName: [String: Int] {
        var all = Dictionary(uniqueKeysWithValues: Self.names.map { ($0, 0) })
        all.merge(counts) { _, counted in max(0, counted) }
        return all
    }
}
