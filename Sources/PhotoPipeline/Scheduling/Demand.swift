/// Who wants which photo, how much, and who is scrolling: the one record of viewers' interest.
///
/// The table is by photo; `rowsByViewer` indexes the same entries by viewer, for the per-viewer
/// counts read every tick. Only the methods below change either, together.
///
/// A value type with no lock of its own: the pipeline keeps it behind its one lock.
struct Demand {
    /// How much each viewer wants each photo.
    private var table: [Int: [ViewerID: RowPriority]] = [:]
    private var rowsByViewer: [ViewerID: Set<Int>] = [:]
    /// Viewers scrolling now: nothing starts only for them.
    private var scrolling: Set<ViewerID> = []
    /// When each wanted photo was last asked for (a counter): among equals, the latest request's
    /// order (its rows nearest first) decides which waiting download gets a free permit.
    private var requestOrder: [Int: UInt64] = [:]
    private var requests: UInt64 = 0
    /// Eager viewers, each with the first row it has not asked for yet: the eager strategy wants the
    /// whole list in order, kept as this cursor and a few rows asked for at a time, never as a want
    /// per row (100,000 of them would make every change walk the list).
    private var eagerCursors: [ViewerID: Int] = [:]

    /// How the work on one photo should be scheduled, from the viewers that want it.
    struct Scheduling: Equatable {
        /// The highest priority among the wanting viewers that are not scrolling (among all, if all are).
        var priority: RowPriority
        /// Whether at least one wanting viewer is not scrolling: only then may the work start.
        var mayStart: Bool
    }

    /// Records that `viewer` wants photo `index` with `priority` (replacing what it said before).
    mutating func want(_ index: Int, _ priority: RowPriority, by viewer: ViewerID) {
        table[index, default: [:]][viewer] = priority
        rowsByViewer[viewer, default: []].insert(index)
        requests += 1
        requestOrder[index] = requests
    }

    /// Withdraws `viewer`'s interest in photo `index`; returns true when no viewer wants it any more.
    mutating func release(_ index: Int, by viewer: ViewerID) -> Bool {
        table[index]?[viewer] = nil
        rowsByViewer[viewer]?.remove(index)
        guard table[index]?.isEmpty ?? true else { return false }
        table[index] = nil
        requestOrder[index] = nil
        return true
    }

    /// Forgets every viewer's interest in photo `index`: its work is done or failed. Returns the
    /// eager viewers that wanted it (each has room to ask for its next row).
    @discardableResult
    mutating func forget(_ index: Int) -> [ViewerID] {
        requestOrder[index] = nil
        guard let wanters = table.removeValue(forKey: index) else { return [] }
        for viewer in wanters.keys {
            rowsByViewer[viewer]?.remove(index)
        }
        return wanters.keys.filter { eagerCursors[$0] != nil }
    }

    /// Forgets every viewer's interest in every photo, keeping who is scrolling; eager viewers start
    /// again from the top when they next ask.
    mutating func forgetAllWants() {
        table.removeAll()
        rowsByViewer.removeAll()
        requestOrder.removeAll()
        for viewer in eagerCursors.keys { eagerCursors[viewer] = 0 }
    }

    /// Makes `viewer` eager (from the top of the list) unless it is already.
    mutating func makeEager(_ viewer: ViewerID) {
        if eagerCursors[viewer] == nil { eagerCursors[viewer] = 0 }
    }

    /// The first row eager `viewer` has not asked for yet; nil when it is not eager.
    func eagerCursor(of viewer: ViewerID) -> Int? {
        eagerCursors[viewer]
    }

    /// Moves eager `viewer`'s cursor on to `row`.
    mutating func advanceEager(_ viewer: ViewerID, to row: Int) {
        if eagerCursors[viewer] != nil { eagerCursors[viewer] = row }
    }

    /// How many photos `viewer` wants now.
    func wantedCount(by viewer: ViewerID) -> Int {
        rowsByViewer[viewer]?.count ?? 0
    }

    /// Sets whether `viewer` is scrolling.
    mutating func setScrolling(_ isScrolling: Bool, for viewer: ViewerID) {
        if isScrolling { scrolling.insert(viewer) } else { scrolling.remove(viewer) }
    }

    /// Forgets `viewer` (it left); its wants must have been released first.
    mutating func remove(_ viewer: ViewerID) {
        scrolling.remove(viewer)
        rowsByViewer[viewer] = nil
        eagerCursors[viewer] = nil
    }

    /// Whether `viewer` is scrolling.
    func isScrolling(_ viewer: ViewerID) -> Bool {
        scrolling.contains(viewer)
    }

    /// The photos `viewer` wants.
    func rows(wantedBy viewer: ViewerID) -> Set<Int> {
        rowsByViewer[viewer] ?? []
    }

    /// The viewers that want photo `index`.
    func viewers(wanting index: Int) -> Set<ViewerID> {
        table[index].map { Set($0.keys) } ?? []
    }

    /// The viewers that want photo `index`, with how much.
    func wanters(of index: Int) -> [ViewerID: RowPriority] {
        table[index] ?? [:]
    }

    /// When photo `index` was last asked for, relative to the others (lower: earlier).
    func requestOrder(of index: Int) -> UInt64 {
        requestOrder[index] ?? .max
    }

    /// Whether any viewer wants photo `index`.
    func isWanted(_ index: Int) -> Bool {
        table[index] != nil
    }

    /// How photo `index`'s work should be scheduled; background and closed when nobody wants it.
    func scheduling(of index: Int) -> Scheduling {
        let wanters = table[index] ?? [:]
        let active = wanters.filter { !scrolling.contains($0.key) }
        let priority = (active.isEmpty ? wanters : active).values.max() ?? .background
        return Scheduling(priority: priority, mayStart: !active.isEmpty)
    }
}
