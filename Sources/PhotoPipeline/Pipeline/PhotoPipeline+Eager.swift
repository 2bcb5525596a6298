/// The eager strategy without a want per row: an eager viewer wants the whole list in order, kept as
/// a cursor (`Demand`), and asks for a window of rows at a time, enough to keep every background
/// download permit and filter busy. A row that ends (done or failed) makes room for the next, so the
/// order is the list's and the cost of a section stays bounded at any list length.
extension PhotoPipeline {
    /// Rows at most an eager viewer has asked for at once: twice what the background permits and the
    /// filters can run, so a freed permit always finds the next row queued.
    public var eagerWindow: Int {
        2 * (max(1, configuration.maxConcurrentDownloads) + max(1, configuration.maxConcurrentFiltrations))
    }

    /// Rows one locked section looks at when moving an eager cursor past rows already done; the rest
    /// is looked at in sections of its own, so no section walks the list.
    static let eagerScanLimit = 1_024

    /// Makes `viewer` want every row of the list, in order (the eager strategy), and asks for its
    /// first window of them. Cheap at any list length: each locked section looks at `eagerScanLimit`
    /// rows at most.
    public func wantEverything(for viewer: ViewerID) {
        let more = update { state, effects in
            state.demand.makeEager(viewer)
            state.demand.setScrolling(false, for: viewer)
            return feedEager(viewer, in: &state, &effects)
        }
        if more { continueEager(viewer) }
    }

    /// Goes on asking for eager `viewer`'s rows, one bounded section at a time, until its window is
    /// full or the list ends. Never under the lock.
    func continueEager(_ viewer: ViewerID) {
        while update({ state, effects in feedEager(viewer, in: &state, &effects) }) {}
    }

    /// Asks for eager `viewer`'s next rows (skipping those done or failed) until it wants
    /// `eagerWindow` of them, looking at `eagerScanLimit` rows at most; returns whether rows remain to
    /// be looked at with room left for them. Under the lock.
    func feedEager(_ viewer: ViewerID, in state: inout PipelineState, _ effects: inout Effects) -> Bool {
        guard var next = state.demand.eagerCursor(of: viewer) else { return false }
        var wanted = state.demand.wantedCount(by: viewer)
        var looked = 0
        while next < entries.count, wanted < eagerWindow, looked < Self.eagerScanLimit {
            if !state.photoState(of: next).isFinal {
                want(next, .background, by: viewer, in: &state, &effects)
                wanted += 1
            }
            next += 1
            looked += 1
        }
        state.demand.advanceEager(viewer, to: next)
        return next < entries.count && wanted < eagerWindow
    }

    /// Forgets every viewer's interest in photo `index` (its work is done or failed); the eager
    /// viewers among them ask for their next rows. Under the lock.
    func forgetDemand(of index: Int, in state: inout PipelineState, _ effects: inout Effects) {
        for viewer in state.demand.forget(index) {
            guard feedEager(viewer, in: &state, &effects) else { continue }
            effects.afterwards { [self] in continueEager(viewer) }
        }
    }
}
