import Foundation
import PhotoCodecs
import Locking

/// Handing out images: what the web layer serves. Asking never starts work the viewport did not ask
/// for, except the full-size sepia image, which is made only on request.
extension PhotoPipeline {
    /// The cached `variant` of photo `index` (from memory, else from disk), counting a hit or miss.
    /// Reads the disk on the calling thread: from async code use `loadImage`.
    public func image(_ variant: ImageVariant, of index: Int) throws(PipelineError) -> CachedImage {
        if let image = try imageInMemory(variant, of: index) { return image }
        let readAt = coldStarts
        return try keep(results?.read(diskKey(index, variant)), as: variant, of: index, readAt: readAt)
    }

    /// `image(_:of:)` for async callers: a disk read happens on a Dispatch thread, never on the
    /// cooperative pool.
    public func loadImage(_ variant: ImageVariant, of index: Int) async throws(PipelineError) -> CachedImage {
        if let image = try imageInMemory(variant, of: index) { return image }
        let readAt = coldStarts
        guard let results else { return try keep(nil, as: variant, of: index, readAt: readAt) }
        let name = diskKey(index, variant)
        let data = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: results.read(name)) }
        }
        return try keep(data, as: variant, of: index, readAt: readAt)
    }

    /// Photo `index`'s sepia thumbnail if memory holds it now (a hit, as `readyThumbnail` counts it),
    /// else nil (no such photo either). Never waits nor reads the disk: safe on an event loop.
    public func thumbnailInMemory(of index: Int) -> CachedImage? {
        guard entries.indices.contains(index) else { return nil }
        return core.lock.withLock { $0.store.image(for: .init(index: index, variant: .thumbnail)) }
    }

    /// How many requests wait now for thumbnails on their way (`readyThumbnail`).
    public var thumbnailsAwaited: Int { thumbnailWaits.waiting }

    /// Photo `index`'s sepia thumbnail, waiting up to `bound` for it while the photo is downloading,
    /// waiting for its filtration or being filtered: a page asks as the last byte arrives and is answered the moment the filter is
    /// done. Starts no work; a photo at rest (not asked for, cancelled, failed) is answered at once.
    public func readyThumbnail(of index: Int, waitingUpTo bound: Duration) async throws(PipelineError) -> CachedImage {
        if case .final(let image)? = try await awaitThumbnail(of: index, previewsAfter: nil, until: .now + bound) {
            return image
        }
        return try await loadImage(.thumbnail, of: index)
    }

    /// A step of a photo's thumbnail on its way: a sepia preview of its bytes arrived so far (the
    /// `sequence`-th, as its `partialPreview` event numbers it), or the final thumbnail.
    public enum ThumbnailStep: Sendable {
        case preview(sequence: Int, CachedImage)
        case final(CachedImage)
    }

    /// As `readyThumbnail` (until `deadline`), but a preview of the bytes arrived newer than the
    /// `after`-th (unless nil) is an answer too: a stop's request brings a row's previews and then its
    /// final thumbnail, with no ask of their own.
    public func nextThumbnail(of index: Int, after sequence: Int?, until deadline: ContinuousClock.Instant) async throws(PipelineError) -> ThumbnailStep {
        if let step = try await awaitThumbnail(of: index, previewsAfter: sequence, until: deadline) { return step }
        return .final(try await loadImage(.thumbnail, of: index))
    }

    /// Whether photo `index` has a thumbnail to read (made: in memory or on disk) or on its way here
    /// (its work queued or running): for a row nobody started, cancelled or failed nothing will come,
    /// so a stop's answer spends nothing on it.
    public func thumbnailMadeOrComing(of index: Int) -> Bool {
        guard entries.indices.contains(index) else { return false }
        return core.lock.withLock { state in
            state.failures[index] == nil && (state.photoState(of: index) == .filtered || state.pending.activity(of: index) != nil
                || state.pending.downloadsInProgress[index] != nil || state.pending.filtrationsInProgress[index] != nil)
        }
    }

    /// Waits, until `deadline`, while photo `index` is on its way (downloading, downloaded with its
    /// filtration queued, or filtering), for its final thumbnail in memory or, with `previewsAfter`, a
    /// newer preview of its bytes arrived. Nil when neither came (the photo at rest, or the time is
    /// up): the caller reads the disk.
    private func awaitThumbnail(of index: Int, previewsAfter: Int?, until deadline: ContinuousClock.Instant) async throws(PipelineError) -> ThumbnailStep? {
        let newerPreview: @Sendable () -> (Int, CachedImage)? = { [self] in
            guard let after = previewsAfter else { return nil }
            return core.lock.withLock { state in
                guard let sequence = state.arrived.sequence(of: index), sequence > after,
                      let image = state.arrived.image(of: index) else { return nil }
                return (sequence, image)
            }
        }
        let onItsWay: @Sendable () -> Bool = { [self] in
            core.lock.withLock { state in
                state.failures[index] == nil && (state.pending.activity(of: index) != nil
                    || state.pending.downloadsInProgress[index] != nil || state.pending.filtrationsInProgress[index] != nil)
            }
        }
        while true {
            if let image = try imageInMemory(.thumbnail, of: index) { return .final(image) }
            if let (sequence, preview) = newerPreview() { return .preview(sequence: sequence, preview) }
            let now = ContinuousClock.now
            guard deadline > now, !Task.isCancelled else { return nil }
            if onItsWay() {
                await thumbnailWaits.wait(for: index, upTo: deadline - now, while: { onItsWay() && newerPreview() == nil })
            } else {
                return nil
            }
        }
    }

    /// Photo `index`'s original as downloaded, for serving: only once its thumbnail was made from
    /// it (so the bytes decoded as the image format they claim), never whatever an origin sent.
    public func decodedOriginal(of index: Int) async throws(PipelineError) -> CachedImage {
        let state = try photoState(of: index)
        guard state == .filtered else { throw .notAvailable(index: index, variant: .original, state: state) }
        let image = try await loadImage(.original, of: index)
        guard image.format != nil else { throw .notAvailable(index: index, variant: .original, state: state) }
        return image
    }

    private func photoState(of index: Int) throws(PipelineError) -> PhotoRecordState {
        guard entries.indices.contains(index) else { throw .noSuchPhoto(index: index, count: entries.count) }
        return core.lock.withLock { $0.photoState(of: index) }
    }

    private func imageInMemory(_ variant: ImageVariant, of index: Int) throws(PipelineError) -> CachedImage? {
        guard entries.indices.contains(index) else {
            throw .noSuchPhoto(index: index, count: entries.count)
        }
        guard variant == .partial else {
            return update { state, _ in state.store.image(for: .init(index: index, variant: variant)) }
        }
        // A preview of what has arrived is never in the cache nor on disk: there or not at all. Once
        // every byte arrived and was filtered, the best preview of them is the thumbnail itself (a page
        // asks for its last preview as the photo finishes: it gets the photo, not an error).
        let found: Result<CachedImage, PipelineError> = update { state, _ in
            if let preview = state.arrived.image(of: index) { return .success(preview) }
            let photoState = state.photoState(of: index)
            if photoState == .filtered, let final = state.store.image(for: .init(index: index, variant: .thumbnail)) {
                return .success(final)
            }
            return .failure(.notAvailable(index: index, variant: .partial, state: photoState))
        }
        return try found.get()
    }

    /// Puts bytes read back from disk into the memory cache, or counts the miss (and forgets a
    /// file the results store no longer has). Bytes read before the list started cold (`readAt`, its
    /// cold starts when the read began) are a miss: the list has forgotten them.
    func keep(_ data: Data?, as variant: ImageVariant, of index: Int, readAt: Int) throws(PipelineError) -> CachedImage {
        let image = data.map { CachedImage(data: $0) }
        let key = ImageCache.Key(index: index, variant: variant)
        let kept: Result<CachedImage, PipelineError> = update { state, effects in
            defer { effects.publishStateChanges(in: state) }
            guard let image, state.coldStarts == readAt else {
                state.store.countMiss()
                if state.store.isOnDisk(key) { effects.storeChanged(state.store.forgetOnDisk([diskKey(index, variant)])) }
                return .failure(.notAvailable(index: index, variant: variant, state: state.photoState(of: index)))
            }
            effects.storeChanged(state.store.keepReadBack(image, as: key))
            return .success(image)
        }
        return try kept.get()
    }

    /// The full-size sepia image of photo `index`, made from its downloaded original on the
    /// filtration queue and within the shared filter bound (so it counts against the CPU bounds) and cached. Requests for a photo whose
    /// render is running share it: one render per photo at a time, and per cold start (a render begun
    /// before one is never joined after it).
    public func fullSizeSepia(of index: Int) async throws(PipelineError) -> CachedImage {
        let render = FullSizeRender(index: index, coldStarts: coldStarts)
        if let cached = try? await loadImage(.sepia, of: index) { return cached }
        do {
            return try await fullSizeRenders.run(render) { [self] in try await renderFullSizeSepia(render) }
        } catch let error as PipelineError {
            throw error
        } catch {
            // The render throws only `PipelineError`; a cancelled wait would land here.
            throw .notAvailable(index: index, variant: .sepia, state: record(index).state)
        }
    }

    /// One render of the full-size sepia image (or the one a render that just ended left in the cache).
    /// A cold start since it was asked for cancels it: not rendered if it had not begun, never kept if it
    /// had (the list forgot its original), and its callers told the image is not available.
    private func renderFullSizeSepia(_ render: FullSizeRender) async throws(PipelineError) -> CachedImage {
        let index = render.index
        if let cached = try? await loadImage(.sepia, of: index) { return cached }
        let original = try await loadImage(.original, of: index)
        let renderer = self.renderer
        let queue = core.lock.withLock { $0.pending.filtrationQueue }
        let bounds = configuration.sharedBounds
        let stillWanted: @Sendable () -> Bool = { [self] in coldStarts == render.coldStarts }
        let rendered: Result<EncodedImage, ImageCodecError>? = await withCheckedContinuation { continuation in
            let operation = BlockOperation {
                let render = { () -> Result<EncodedImage, ImageCodecError>? in
                    // Checked once the permit is held: a render that waited through a cold start costs nothing.
                    guard stillWanted() else { return nil }
                    return Result { () throws(ImageCodecError) in try renderer.fullSize(of: original.data) }
                }
                // Within the process-wide filter bound too, as every filtration is.
                continuation.resume(returning: bounds.map { $0.withFiltrationPermit(render) } ?? render())
            }
            operation.queuePriority = .veryHigh
            queue.addOperation(operation)
        }
        switch rendered {
        case .success(let encoded)?:
            let image = CachedImage(data: encoded.data, format: encoded.format)
            let kept: Bool = update { state, effects in
                // Checked under the lock `startCold` empties the store under: kept before it, or never.
                guard state.coldStarts == render.coldStarts else { return false }
                keep(image, as: .sepia, of: index, in: &state, &effects)
                effects.publishStateChanges(in: state)
                return true
            }
            guard kept else { throw .notAvailable(index: index, variant: .sepia, state: record(index).state) }
            return image
        case .failure(let error)?:
            throw .renderFailed(index: index, error)
        case nil:
            throw .notAvailable(index: index, variant: .sepia, state: record(index).state)
        }
    }
}

/// A full-size render's key: the photo, and the cold starts when it was asked for.
struct FullSizeRender: Hashable, Sendable {
    let index: Int
    let coldStarts: Int
}
