import Foundation
import Locking
import PhotoCodecs

/// First pixels before the last byte: while a photo on screen downloads, its bytes so far are decoded
/// at reduced scale and shown in sepia (`ImageVariant.partial`), until the final thumbnail replaces it.
///
/// Bounded CPU: one preview at a time per photo, on the filtration queue below the final filtrations
/// of rows on screen, made only when a permit of the shared filter bounds is free at that moment (a
/// preview waits for nothing: the next bytes bring another chance), and only for rows on screen.
extension PhotoPipeline {
    /// The queue priority of a preview: after the final filtrations of rows on screen, before the rest.
    static let arrivedPreviewPriority = Operation.QueuePriority.high

    /// The sequence numbers of the previews held for `rows` (by photo index): a viewer whose stream
    /// starts after a preview was made learns of it from its snapshot, not only from the next one.
    public func arrivedPreviewSequences(in rows: [Int]) -> [Int: Int] {
        core.lock.withLock { state in
            var sequences: [Int: Int] = [:]
            for index in rows { sequences[index] = state.arrived.sequence(of: index) }
            return sequences
        }
    }

    /// Starts a preview of what `downloader` has received, unless one of its photo is being made or
    /// the download is no longer the photo's. Called on the transfer loop's thread: returns at once.
    func makeArrivedPreview(for downloader: ImageDownloader) {
        let index = downloader.index
        let queue: OperationQueue? = update { state, _ in
            guard state.pending.downloadsInProgress[index] === downloader, state.arrived.begin(index) else { return nil }
            return state.pending.filtrationQueue
        }
        guard let queue else { return }
        let operation = BlockOperation { [weak self, weak downloader] in
            guard let self else { return }
            let (preview, used) = downloader.map { self.renderArrivedPreview(of: $0) } ?? (nil, 0)
            self.keepArrivedPreview(preview, of: index, from: downloader)
            // Bytes taken while this one was made would otherwise wait for the next take.
            if let downloader, used > 0, downloader.arrivedByteCount() > used {
                self.makeArrivedPreview(for: downloader)
            }
        }
        operation.queuePriority = Self.arrivedPreviewPriority
        queue.addOperation(operation)
    }

    /// Decodes the bytes `downloader` holds now (the latest, not those that asked for it) as far as
    /// they go, with its decode ahead (`ArrivingJPEG`: only the bytes since the last take), and makes a
    /// preview of them when one is due; when a filter permit is free, else nothing (the next take
    /// decodes these bytes too). Nil when no preview was due or nothing can be shown yet, or the bytes
    /// do not decode (the final filtration says why, if it comes to that). On a filtration queue thread.
    /// Also returns how many bytes it was made of (0 when it was not tried). The downloader learns what
    /// the decode cost and whether later bytes could show more (not after the JPEG's end, nor corrupt bytes).
    private func renderArrivedPreview(of downloader: ImageDownloader) -> (ArrivedPreview?, used: Int) {
        // A download that ended while this waited on the queue has its final filtration: nothing to show.
        let current = core.lock.withLock { $0.pending.downloadsInProgress[downloader.index] === downloader }
        guard current, downloader.isForARowOnScreen, let (data, preview) = downloader.takeArrivedBytes(),
              takeFilterPermitIfFree() else {
            return (nil, 0)
        }
        defer { releaseFilterPermit() }
        let (renderer, height) = (renderer, configuration.thumbnailHeight)
        let decode = downloader.decodedAhead.withLock { arriving in
            if arriving == nil { arriving = ArrivingJPEG(minimumHeight: height, limits: renderer.limits) }
            return (try? renderer.arrivedDecode(of: data, height: height, continuing: arriving, preview: preview))
                ?? ArrivedDecode(isFinal: true)
        }
        downloader.arrivedBytesDecoded(pixels: decode.declaredPixels, final: decode.isFinal)
        if preview { core.lock.withLock { $0.arrived.countDecode() } }
        return (decode.preview, data.count)
    }

    /// Keeps `preview` for photo `index` if its download is still the one that made it and it shows
    /// more than the last, and tells the viewers; the downloader then asks for more bytes before the next.
    private func keepArrivedPreview(_ preview: ArrivedPreview?, of index: Int, from downloader: ImageDownloader?) {
        let kept: Bool = update { state, effects in
            let current = downloader.map { state.pending.downloadsInProgress[index] === $0 } ?? false
            guard let sequence = state.arrived.end(index, with: current ? preview : nil) else { return false }
            effects.publish(.partialPreview(index: index, sequence: sequence, state: state.photoState(of: index)))
            return true
        }
        // A baseline JPEG's rows would only cut its Exif thumbnail short: it stays until the final image.
        if kept, let preview { downloader?.arrivedPreviewShown(last: preview.fromEXIFThumbnail && !preview.progressive) }
    }

    /// Takes a permit of the shared filter bounds if one is free now (always, without shared bounds).
    private func takeFilterPermitIfFree() -> Bool {
        guard let bounds = configuration.sharedBounds else { return true }
        let acquisition = bounds.filtrations.acquire(bounds.holder, owner: bounds.owner) { granted in
            // Granted between the wait and its withdrawal below: not wanted any more.
            if granted { bounds.filtrations.release(bounds.holder, owner: bounds.owner) }
        }
        switch acquisition {
        case .granted:
            return true
        case .waiting(let ticket):
            bounds.filtrations.withdraw(ticket)
            return false
        }
    }

    private func releaseFilterPermit() {
        guard let bounds = configuration.sharedBounds else { return }
        bounds.filtrations.release(bounds.holder, owner: bounds.owner)
    }
}
