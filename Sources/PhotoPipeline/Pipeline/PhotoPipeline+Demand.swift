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
    public func setWanted(_ rows: [RowRequest], for viewer: ViewerID, suspended: Bool) {
        update { state, effects in
            let keep = Set(rows.map(\.index))
            for index in state.demand.rows(wantedBy: viewer).subtracting(keep) {
                release(index, by: viewer, in: &state, &effects)
            }
            state.demand.setScrolling(suspended, for: viewer)
            for row in rows where entries.indices.contains(row.index) {
                want(row.index, row.priority, by: viewer, in: &state, &effects)
            }
        }
    }

    /// Adds `rows` to what `viewer` wants, keeping what it already wanted.
    public func want(_ rows: [RowRequest], for viewer: ViewerID) {
        update { state, effects in
            for row in rows where entries.indices.contains(row.index) {
                want(row.index, row.priority, by: viewer, in: &state, &effects)
            }
        }
    }

    /// Suspends or resumes `viewer`: while suspended, nothing starts only for it.
    public func setSuspended(_ suspended: Bool, for viewer: ViewerID) {
        update { state, effects in
            state.demand.setScrolling(suspended, for: viewer)
            for index in state.demand.rows(wantedBy: viewer) {
                updateScheduling(of: index, in: &state, &effects)
            }
        }
    }

    /// Forgets `viewer` entirely (it left); work nobody else wants is cancelled.
    public func removeViewer(_ viewer: ViewerID) {
        update { state, effects in
            for index in state.demand.rows(wantedBy: viewer) {
                release(index, by: viewer, in: &state, &effects)
            }
            state.demand.remove(viewer)
        }
    }

    /// The tutorial's `didReceiveMemoryWarning`: cancels all queued and running work for every
    /// viewer, empties the image cache and drops the bytes kept for resuming. Rows go back to `new`
    /// and are fetched again when next asked for.
    public func handleMemoryWarning() {
        update { state, effects in
            for operation in state.pending.removeAll() {
                // What they still deliver (a preview, a thumbnail, an original, bytes to resume from) would refill memory.
                operation.discardResults()
                effects.cancel(operation)
            }
            state.demand.forgetAllWants()
            state.arrived.forgetAll()
            effects.storeChanged(state.store.removeAllFromMemory())
            effects.publishStateChanges(in: state)
        }
    }

    /// Forgets photo `index`'s failure so that it is worked on again when a viewer next wants it;
    /// returns the record. A failed photo is never retried by itself: only this call does it.
    public func retry(_ index: Int) throws(PipelineError) -> PhotoRecord {
        guard entries.indices.contains(index) else { throw .noSuchPhoto(index: index, count: entries.count) }
        let outcome: Result<PhotoRecord, PipelineError> = update { state, effects in
            guard state.failures[index] != nil else { return .failure(.notFailed(index: index, state: state.photoState(of: index))) }
            effects.watch(index, in: state)
            state.failures[index] = nil
            // Fetched again from the origin, as a new photo: what was kept of it may be what failed.
            state.store.forgetOriginal(index)
            effects.publishStateChanges(in: state)
            return .success(record(index, in: state))
        }
        return try outcome.get()
    }

    // MARK: Under the lock

    /// Records that `viewer` wants photo `index` and makes sure its operations exist.
    func want(_ index: Int, _ priority: RowPriority, by viewer: ViewerID, in state: inout PipelineState, _ effects: inout Effects) {
        guard !state.photoState(of: index).isFinal else { return }
        state.demand.want(index, priority, by: viewer)
        startOperations(for: index, in: &state, &effects)
        for operation in state.pending.operations(for: index) {
            state.requesters.add([viewer], to: operation)
        }
        updateScheduling(of: index, in: &state, &effects)
    }

    /// The tutorial's `startOperationsForPhotoRecord`: a download if the photo is new, a filtration
    /// (after the download, which hands it the bytes) if it is not filtered yet; never a second
    /// operation for a photo that has one. They are enqueued once the lock is released.
    func startOperations(for index: Int, in state: inout PipelineState, _ effects: inout Effects) {
        let photoState = state.localState(of: index)
        // A cancelled operation still winding down keeps the photo until it ends (its download's bytes
        // are not back yet to resume from); its end starts new ones if the photo is still wanted.
        guard !photoState.isFinal, !state.pending.isWindingDown(index), !state.remote.isWaiting(index) else { return }
        let record = self.record(index, in: state)
        let download = state.pending.downloadsInProgress[index]
        let needsDownload = photoState == .new && download == nil
        // A filtration left from an earlier download (it failed, or the photo's bytes are gone) is not
        // given the new one's bytes: it may already have looked for them, and would end with nothing
        // to filter while they were lost (a retry right after a failure stayed `downloaded`). It ends
        // on its own; the new download hands its bytes to a filtration of its own.
        var filtration = needsDownload ? nil : state.pending.filtrationsInProgress[index]
        var madeFiltration: ImageFiltration?
        if filtration == nil {
            let made = ImageFiltration(
                photoRecord: record,
                input: needsDownload || download != nil ? .awaitingDownload : original(of: index, in: &state),
                renderer: renderer, thumbnailHeight: configuration.thumbnailHeight, claims: claims,
                bounds: configuration.sharedBounds, delegate: self)
            state.pending.filtrationsInProgress[index] = made
            state.requesters.add(state.demand.viewers(wanting: index), to: made)
            if let download { effects.link(made, after: download) }
            filtration = made
            madeFiltration = made
        }
        if needsDownload {
            let made = ImageDownloader(
                photoRecord: record, resumingFrom: state.store.partials.take(index), handingOnTo: filtration,
                loop: loop, limits: configuration.transferLimits, claims: claims, bounds: configuration.sharedBounds,
                delegate: self)
            state.pending.downloadsInProgress[index] = made
            state.requesters.add(state.demand.viewers(wanting: index), to: made)
            if let filtration { effects.link(filtration, after: made) }
            effects.enqueue(made, on: state.pending.downloadQueue)
        }
        if let madeFiltration {
            effects.enqueue(madeFiltration, on: state.pending.filtrationQueue)
        }
    }

    /// Where a downloaded photo's filtration finds the original: memory, or the results store.
    private func original(of index: Int, in state: inout PipelineState) -> ImageFiltration.Input {
        let key = ImageCache.Key(index: index, variant: .original)
        if let image = state.store.peek(key) { return .original(image.data) }
        guard let results, state.store.isOnDisk(key) else { return .awaitingDownload }
        let name = diskKey(index, .original)
        // Read on the filtration's thread, outside any lock.
        return .stored { results.read(name) }
    }

    /// Withdraws `viewer`'s interest in `index`; when nobody wants the photo any more its
    /// operations are cancelled (once the lock is released).
    func release(_ index: Int, by viewer: ViewerID, in state: inout PipelineState, _ effects: inout Effects) {
        guard state.demand.release(index, by: viewer) else {
            updateScheduling(of: index, in: &state, &effects)
            return
        }
        effects.reconsiderPermits()
        if claims.isShared, askElsewhere(index, in: &state, &effects) { return }
        for operation in state.pending.operations(for: index) {
            withdraw(operation, in: &state, &effects)
        }
    }

    /// Takes `operation` out of progress and cancels it (once the lock is released). Under the lock.
    func withdraw(_ operation: PhotoOperation, in state: inout PipelineState, _ effects: inout Effects) {
        state.pending.remove(operation)
        // Closed at once, so none starts in a permit another cancellation frees before it is cancelled too.
        effects.decided(operation, changed: operation.decide(priority: nil, mayStart: false))
        effects.cancel(operation)
    }

    /// Starts photo `index`'s operations again when a viewer still wants it and none is in progress
    /// (its work was cancelled while winding down, or found nothing to filter).
    func restartIfStillWanted(_ index: Int, in state: inout PipelineState, _ effects: inout Effects) {
        guard state.demand.isWanted(index), state.pending.operations(for: index).isEmpty else { return }
        startOperations(for: index, in: &state, &effects)
        updateScheduling(of: index, in: &state, &effects)
    }

    /// Gives the photo's operations the highest priority among the viewers that want it, and opens
    /// their gate only while at least one of those viewers is not scrolling (and, for a download
    /// nobody has on screen, only once it holds a permit).
    func updateScheduling(of index: Int, in state: inout PipelineState, _ effects: inout Effects) {
        let scheduling = state.demand.scheduling(of: index)
        for operation in state.pending.operations(for: index) {
            // A download no viewer has on screen waits for a permit: the section's grant opens its gate.
            let needsPermit = operation.queue == .download && scheduling.priority < .visible
            effects.decided(operation, changed: operation.decide(
                priority: scheduling.priority, mayStart: scheduling.mayStart && !needsPermit))
        }
        effects.reconsiderPermits()
    }
}
