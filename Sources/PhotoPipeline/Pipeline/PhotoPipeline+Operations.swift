import Foundation
import HTTPTransfer
import PhotoCodecs

/// What the operations report back: record states, cache, stats and events follow from here.
/// Each callback runs on the operation's thread and takes the lock itself.
extension PhotoPipeline: ImageDownloaderDelegate, ImageFiltrationDelegate {
    func operationDidStart(_ operation: PhotoOperation) {
        state.withLock { state in
            let slot = state.pending.takeSlot(operation.queue)
            operation.slot.withLock { $0 = slot }
            state.stats[operation.queue].started += 1
            events.publish(.operation(OperationEvent(
                queue: operation.queue, index: operation.index, outcome: .started, slot: slot)))
            switch operation.queue {
            case .download: transition(operation.photoRecord, to: .downloading(progress: nil))
            case .filtration: transition(operation.photoRecord, to: .filtering)
            }
        }
    }

    func operationWasCancelledBeforeStart(_ operation: PhotoOperation) {
        state.withLock { state in
            state.pending.remove(operation)
            if operation.queue == .filtration { state.awaitingFiltration[operation.index] = nil }
            state.stats[operation.queue].cancelled += 1
            events.publish(.operation(OperationEvent(
                queue: operation.queue, index: operation.index, outcome: .cancelled, slot: nil)))
        }
    }

    // MARK: ImageDownloaderDelegate

    func downloader(_ downloader: ImageDownloader, didReceive progress: TransferProgress) {
        state.withLock { state in
            let index = downloader.index
            let delta = progress.received - state.work[index, default: PhotoWork()].bytesInFlight
            state.work[index, default: PhotoWork()].bytesInFlight = progress.received
            state.work[index, default: PhotoWork()].bytes += delta
            state.stats.bytesDownloaded += delta
            if case .downloading = downloader.photoRecord.state {
                transition(downloader.photoRecord, to: .downloading(progress: progress.fraction))
            }
        }
    }

    func downloader(_ downloader: ImageDownloader, didFinishWith result: Result<Data, TransferError>) {
        state.withLock { state in
            let index = downloader.index
            let record = downloader.photoRecord
            state.pending.remove(downloader)
            let outcome: OperationEvent.Outcome
            switch result {
            case .success(let data):
                let delta = Int64(data.count) - state.work[index, default: PhotoWork()].bytesInFlight
                state.work[index, default: PhotoWork()].bytes += delta
                state.work[index, default: PhotoWork()].downloads += 1
                state.stats.bytesDownloaded += delta
                outcome = .finished
                transition(record, to: .downloaded)
                state.awaitingFiltration[index] = data
                keepOnDisk(data, index, .original)
                let evicted = state.cache.insert(CachedImage(data: data), for: .init(index: index, variant: .original))
                handleEvictions(evicted, in: state)
            case .failure(.cancelled):
                outcome = .cancelled
                state.stats.transfersAborted += 1
                transition(record, to: restingState(of: index, in: state))
            case .failure(let error):
                outcome = .failed
                transition(record, to: .failed(reason: error.description, detail: error.detail))
                clearDemand(for: index, in: &state)
            }
            state.work[index, default: PhotoWork()].bytesInFlight = 0
            end(downloader, outcome, in: &state)
        }
    }

    // MARK: ImageFiltrationDelegate

    func originalBytes(for filtration: ImageFiltration) -> Data? {
        let inMemory: Data?? = state.withLock { state in
            guard case .downloaded = filtration.photoRecord.state else { return .some(nil) }
            if let data = state.awaitingFiltration[filtration.index]
                ?? state.cache.image(for: .init(index: filtration.index, variant: .original))?.data {
                return .some(data)
            }
            return .none
        }
        if let inMemory { return inMemory }
        // Downloaded before a restart: read back on this filtration thread, outside the lock.
        return disk?.read(diskKey(filtration.index, .original))
    }

    func filtrationFoundNothingToDo(_ filtration: ImageFiltration) {
        state.withLock { state in
            state.pending.remove(filtration)
            // The original was evicted before it could be filtered: fetch it again for whoever still wants it.
            let index = filtration.index
            guard filtration.photoRecord.state == .new, let wanters = state.demand[index] else { return }
            for (viewer, priority) in wanters {
                want(index, priority, by: viewer, in: &state)
            }
        }
    }

    func filtration(_ filtration: ImageFiltration, didMakePreview preview: EncodedImage) {
        state.withLock { state in
            let index = filtration.index
            store(preview, as: .preview, of: index, in: &state)
            if case .filtering = filtration.photoRecord.state {
                events.publish(.preview(index: index))
            }
        }
    }

    func filtration(
        _ filtration: ImageFiltration,
        didFinishWith result: Result<EncodedImage, ImageCodecError>,
        cpuSeconds: Double
    ) {
        state.withLock { state in
            let index = filtration.index
            let record = filtration.photoRecord
            state.pending.remove(filtration)
            state.awaitingFiltration[index] = nil
            state.work[index, default: PhotoWork()].filterSeconds += cpuSeconds
            state.stats.filterSeconds += cpuSeconds
            let outcome: OperationEvent.Outcome
            switch result {
            case .success(let thumbnail):
                outcome = .finished
                transition(record, to: .filtered)
                store(thumbnail, as: .thumbnail, of: index, in: &state)
                clearDemand(for: index, in: &state)
            case .failure(.cancelled):
                outcome = .cancelled
                transition(record, to: restingState(of: index, in: state))
            case .failure(let error):
                outcome = .failed
                transition(record, to: .failed(reason: error.description, detail: error.detail))
                clearDemand(for: index, in: &state)
            }
            end(filtration, outcome, in: &state)
        }
    }

    /// Counts the end of a started operation, frees its lane and tells subscribers.
    private func end(_ operation: PhotoOperation, _ outcome: OperationEvent.Outcome, in state: inout State) {
        let slot = operation.slot.withLock { $0 }
        if let slot { state.pending.releaseSlot(slot, of: operation.queue) }
        switch outcome {
        case .finished: state.stats[operation.queue].finished += 1
        case .failed: state.stats[operation.queue].failed += 1
        case .cancelled: state.stats[operation.queue].cancelled += 1
        case .started: break
        }
        events.publish(.operation(OperationEvent(
            queue: operation.queue, index: operation.index, outcome: outcome, slot: slot)))
    }
}
