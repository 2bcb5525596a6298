/// Download permits: rows on a viewer's screen start at once (bounded only by the download queue's
/// width, `maxConcurrentTransfers`, across all viewers); prefetch and background downloads share
/// `maxConcurrentDownloads` permits, and a viewer's prefetch waits until its visible rows are done.
///
/// A waiting non-visible download's gate is open only while it holds a permit, so the queue can never
/// start more of them than there are permits: running ones plus open gates stay within the bound.
extension PhotoPipeline {
    /// Opens the gates of as many waiting prefetch and background downloads as there are free permits
    /// (higher priority first, then the latest request's order) and closes the others. Run by
    /// `update` at the end of every section that changed what runs or who wants what. Under the lock.
    func grantDownloadPermits(in state: inout PipelineState, _ effects: inout Effects) {
        let downloads = state.pending.downloadsInProgress
        guard !downloads.isEmpty else { return }
        let busy = viewersWithVisibleWork(in: state)
        var running = 0
        var waiting: [(download: ImageDownloader, priority: RowPriority, order: UInt64)] = []
        for (index, download) in downloads {
            let scheduling = state.demand.scheduling(of: index)
            guard scheduling.priority < .visible else { continue }
            if state.pending.isRunning(download) {
                running += 1
                continue
            }
            let idle = state.demand.wanters(of: index).keys.contains { !state.demand.isScrolling($0) && !busy.contains($0) }
            if scheduling.mayStart, idle {
                waiting.append((download, scheduling.priority, state.demand.requestOrder(of: index)))
            } else {
                effects.decided(download, changed: download.decide(priority: nil, mayStart: false))
            }
        }
        var free = max(0, configuration.maxConcurrentDownloads - running)
        for candidate in waiting.sorted(by: { ($0.priority, $1.order) > ($1.priority, $0.order) }) {
            let granted = free > 0
            if granted { free -= 1 }
            effects.decided(candidate.download, changed: candidate.download.decide(priority: nil, mayStart: granted))
        }
    }

    /// Viewers with a visible row whose work is still in progress: their prefetch waits for it.
    private func viewersWithVisibleWork(in state: PipelineState) -> Set<ViewerID> {
        var busy: Set<ViewerID> = []
        for index in Set(state.pending.downloadsInProgress.keys).union(state.pending.filtrationsInProgress.keys) {
            for (viewer, priority) in state.demand.wanters(of: index) where priority == .visible {
                busy.insert(viewer)
            }
        }
        return busy
    }
}
