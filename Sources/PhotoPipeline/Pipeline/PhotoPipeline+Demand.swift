import Foundation

/// Viewers saying what they want: the shared side of the tutorial's `startOperationsForPhotoRecord`,
/// `suspendAllOperations` and `loadImagesForOnscreenCells`.
extension PhotoPipeline {
    /// A row a viewer asks for, with how much it wants it.
    public typealias RowRequest = (index: Int, priority: RowPriority)

    /// Makes `viewer` want exactly `rows` (listed in the order they should run), cancelling its
    /// interest in every other row, and sets whether it is scrolling.
    ///
    /// Work another viewer still wants is never cancelled; a photo with no viewer left is.
    /// `visible` rows are remembered as seen, so work on them does not count as waste.
    public func setWanted(
        _ rows: [RowRequest], for viewer: ViewerID, visible: ClosedRange<Int>?, suspended: Bool
    ) {
        let toCancel = state.withLock { state in
            if let visible, !records.isEmpty {
                state.everVisible.formUnion(visible.clamped(to: 0...(records.count - 1)))
            }
            let keep = Set(rows.map(\.index))
            let previous = state.viewers[viewer]?.wanted ?? []
            var toCancel: [PhotoOperation] = []
            for index in previous.subtracting(keep) {
                toCancel += release(index, by: viewer, in: &state)
            }
            state.viewers[viewer, default: ViewerDemand()].suspended = suspended
            for row in rows where records.indices.contains(row.index) {
                want(row.index, row.priority, by: viewer, in: &state)
            }
            return toCancel
        }
        toCancel.forEach { $0.cancel() }
    }

    /// Adds `rows` to what `viewer` wants, keeping what it already wanted.
    public func want(_ rows: [RowRequest], for viewer: ViewerID) {
        state.withLock { state in
            for row in rows where records.indices.contains(row.index) {
                want(row.index, row.priority, by: viewer, in: &state)
            }
        }
    }

    /// Suspends or resumes `viewer`: while suspended, nothing starts only for it.
    public func setSuspended(_ suspended: Bool, for viewer: ViewerID) {
        state.withLock { state in
            state.viewers[viewer, default: ViewerDemand()].suspended = suspended
            for index in state.viewers[viewer]?.wanted ?? [] {
                updateScheduling(of: index, in: &state)
            }
        }
    }

    /// Withdraws all of `viewer`'s interest; work nobody else wants is cancelled.
    public func cancelAll(for viewer: ViewerID) {
        setWanted([], for: viewer, visible: nil, suspended: state.withLock { $0.viewers[viewer]?.suspended ?? false })
    }

    /// Forgets `viewer` entirely (it left); work nobody else wants is cancelled.
    public func removeViewer(_ viewer: ViewerID) {
        cancelAll(for: viewer)
        state.withLock { _ = $0.viewers.removeValue(forKey: viewer) }
    }

    /// The tutorial's `didReceiveMemoryWarning`: cancels all queued and running work for every
    /// viewer and empties the image cache. Rows go back to `new` and are fetched again when next
    /// asked for.
    public func handleMemoryWarning() {
        let toCancel = state.withLock { state in
            let operations = state.pending.downloadsInProgress.values.map { $0 as PhotoOperation }
                + state.pending.filtrationsInProgress.values.map { $0 as PhotoOperation }
            state.pending.downloadsInProgress.removeAll()
            state.pending.filtrationsInProgress.removeAll()
            state.demand.removeAll()
            for viewer in state.viewers.keys { state.viewers[viewer]?.wanted.removeAll() }
            handleEvictions(state.cache.removeAll(), in: state)
            return operations
        }
        toCancel.forEach { $0.cancel() }
    }

    // MARK: Under the lock

    /// Records that `viewer` wants photo `index` and makes sure its operations exist.
    func want(_ index: Int, _ priority: RowPriority, by viewer: ViewerID, in state: inout State) {
        guard !records[index].state.isFinal else { return }
        state.demand[index, default: [:]][viewer] = priority
        state.viewers[viewer, default: ViewerDemand()].wanted.insert(index)
        let created = startOperations(for: records[index], in: &state)
        updateScheduling(of: index, in: &state)
        for operation in created {
            switch operation.queue {
            case .download: state.pending.downloadQueue.addOperation(operation)
            case .filtration: state.pending.filtrationQueue.addOperation(operation)
            }
        }
    }

    /// The tutorial's `startOperationsForPhotoRecord`: a download if the photo is new, a filtration
    /// (after the download) if it is not filtered yet; never a second operation for a photo that has
    /// one. Returns the operations made, not yet enqueued.
    func startOperations(for record: PhotoRecord, in state: inout State) -> [PhotoOperation] {
        let index = record.index
        var created: [PhotoOperation] = []
        var downloader = state.pending.downloadsInProgress[index]
        if record.state == .new, downloader == nil {
            let operation = ImageDownloader(
                photoRecord: record, loop: loop, limits: configuration.transferLimits, delegate: self)
            state.pending.downloadsInProgress[index] = operation
            downloader = operation
            created.append(operation)
        }
        if !record.state.isFinal, state.pending.filtrationsInProgress[index] == nil {
            let operation = ImageFiltration(
                photoRecord: record, renderer: renderer,
                thumbnailHeight: configuration.thumbnailHeight, delegate: self)
            if let downloader {
                operation.addDependency(downloader)
                downloader.keepAlive(operation)
            }
            state.pending.filtrationsInProgress[index] = operation
            created.append(operation)
        }
        return created
    }

    /// Withdraws `viewer`'s interest in `index`; returns the operations to cancel (once the lock is
    /// released) when nobody wants the photo any more.
    func release(_ index: Int, by viewer: ViewerID, in state: inout State) -> [PhotoOperation] {
        state.demand[index]?[viewer] = nil
        state.viewers[viewer]?.wanted.remove(index)
        guard state.demand[index]?.isEmpty ?? true else {
            updateScheduling(of: index, in: &state)
            return []
        }
        state.demand[index] = nil
        let operations = state.pending.operations(for: index)
        for operation in operations {
            state.pending.remove(operation)
            // Closed at once, so none starts in a slot another cancellation frees before it is cancelled too.
            operation.setGate(open: false)
        }
        return operations
    }

    /// Forgets every viewer's interest in `index`: its work is done or failed.
    func clearDemand(for index: Int, in state: inout State) {
        guard let wanters = state.demand.removeValue(forKey: index) else { return }
        for viewer in wanters.keys {
            state.viewers[viewer]?.wanted.remove(index)
        }
    }

    /// Gives the photo's operations the highest priority among the viewers that want it, and opens
    /// their gate only while at least one of those viewers is not scrolling.
    func updateScheduling(of index: Int, in state: inout State) {
        let wanters = state.demand[index] ?? [:]
        let active = wanters.filter { !(state.viewers[$0.key]?.suspended ?? false) }
        let priority = (active.isEmpty ? wanters : active).values.max() ?? .background
        for operation in state.pending.operations(for: index) {
            operation.queuePriority = priority.queuePriority
            operation.setGate(open: !active.isEmpty)
        }
    }
}

extension PhotoPipeline {
    /// Forgets photo `index`'s failure so that it is worked on again when a viewer next wants it;
    /// returns the record. A failed photo is never retried by itself: only this call does it.
    public func retry(_ index: Int) throws(PipelineError) -> PhotoRecord {
        guard records.indices.contains(index) else { throw .noSuchPhoto(index: index, count: records.count) }
        let record = records[index]
        try state.withLock { state throws(PipelineError) in
            guard case .failed = record.state else { throw .notFailed(index: index, state: record.state) }
            transition(record, to: .new)
        }
        return record
    }
}
