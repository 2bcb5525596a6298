import Foundation
import HTTPTransfer
import PhotoCodecs

/// What the operations report back: tracks, the ledger, the store and events follow from here.
/// Each report is handled on the operation's thread; anything slow (hashing an image) happens
/// before the locked section.
extension PhotoPipeline: PhotoOperationDelegate {
    func operationReported(_ report: OperationReport) {
        switch report {
        case .started(let operation): operationDidStart(operation)
        case .cancelledBeforeStart(let operation): operationWasCancelledBeforeStart(operation)
        case .claimedElsewhere(let operation): operationFoundClaimedElsewhere(operation)
        case .progress(let downloader, let progress): self.downloader(downloader, didReceive: progress)
        case .arrivedBytes(let downloader): makeArrivedPreview(for: downloader)
        case .downloaded(let downloader, let outcome): self.downloader(downloader, didFinishWith: outcome)
        case .preview(let filtration, let preview): self.filtration(filtration, didMakePreview: preview)
        case .filtered(let filtration, let outcome): self.filtration(filtration, didFinishWith: outcome)
        }
    }

    private func operationDidStart(_ operation: PhotoOperation) {
        update { state, effects in
            effects.watch(operation.index, in: state)
            // This instance's own work now says where the photo is.
            state.remote.forgetReport(operation.index)
            let track = state.pending.start(operation)
            effects.reconsiderPermits()
            effects.publish(.operation(OperationEvent(
                queue: operation.queue, index: operation.index, outcome: .started, track: track,
                viewers: state.requesters.viewers(of: operation))))
            effects.publishStateChanges(in: state)
        }
    }

    func operationWasCancelledBeforeStart(_ operation: PhotoOperation) {
        update { state, effects in
            let index = operation.index
            effects.watch(index, in: state)
            state.pending.remove(operation)
            _ = state.pending.end(operation, .cancelled)
            effects.reconsiderPermits()
            switch operation {
            case let download as ImageDownloader:
                // It never ran: the bytes it was to resume from go back.
                if let resumable = download.resumingFrom, download.keepsResults {
                    state.store.partials.keep(resumable, for: index)
                }
            default:
                if state.pending.filtrationsInProgress[index] == nil { state.store.filtrationEnded(index) }
            }
            let ended = OperationEvent(
                queue: operation.queue, index: index, outcome: .cancelled, track: nil,
                viewers: state.requesters.take(operation))
            state.ledger.account(ended)
            effects.publish(.operation(ended))
            effects.publishStateChanges(in: state)
        }
    }

    // MARK: Downloads

    private func downloader(_ downloader: ImageDownloader, didReceive progress: TransferProgress) {
        update { state, effects in
            let index = downloader.index
            effects.watch(index, in: state)
            let previous = state.pending.record(progress, of: downloader)
            state.ledger.add(bytes: progress.fetched - (previous?.fetched ?? 0), for: index)
            effects.publishStateChanges(in: state)
        }
    }

    private func downloader(_ downloader: ImageDownloader, didFinishWith outcome: TransferOutcome) {
        // Hashed here, on the loop thread, not under the lock.
        let original = (try? outcome.result.get()).map { CachedImage(data: $0) }
        update { state, effects in
            let index = downloader.index
            effects.watch(index, in: state)
            let wasInProgress = state.pending.downloadsInProgress[index] === downloader
            state.pending.remove(downloader)
            // What arrived after the last progress report.
            state.ledger.add(bytes: Int64(outcome.fetchedBytes) - (state.pending.progress(of: downloader)?.fetched ?? 0), for: index)
            let ending: OperationEvent.Outcome
            switch outcome.result {
            case .success:
                ending = .finished
                state.ledger.countDownload(of: index, resumedBytes: outcome.resumedBytes)
                if wasInProgress, state.pending.filtrationsInProgress[index] != nil {
                    state.store.handOnToFiltration(index)
                }
                if let original, downloader.keepsResults { keep(original, as: .original, of: index, in: &state, &effects) }
            case .failure(.cancelled):
                ending = .cancelled
                state.arrived.forget(index)
                state.ledger.countAbort(of: index)
                if let resumable = outcome.resumableData, downloader.keepsResults { state.store.partials.keep(resumable, for: index) }
            case .failure(let error):
                ending = .failed
                state.arrived.forget(index)
                state.failures[index] = .init(reason: error.description, detail: error.detail)
                forgetDemand(of: index, in: &state, &effects)
            }
            end(downloader, ending, bytes: Int64(outcome.fetchedBytes), in: &state, &effects)
        }
    }

    // MARK: Filtrations

    private func filtration(_ filtration: ImageFiltration, didMakePreview preview: EncodedImage) {
        let image = CachedImage(data: preview.data, format: preview.format)
        update { state, effects in
            let index = filtration.index
            guard filtration.keepsResults else { return }
            keep(image, as: .preview, of: index, in: &state, &effects)
            effects.publishStateChanges(in: state)
            if case .filtering = state.photoState(of: index) {
                effects.publish(.preview(index: index))
            }
        }
    }

    private func filtration(_ filtration: ImageFiltration, didFinishWith outcome: ImageFiltration.Outcome) {
        let thumbnail: CachedImage? = if case .rendered(.success(let encoded), _) = outcome {
            CachedImage(data: encoded.data, format: encoded.format)
        } else {
            nil
        }
        update { state, effects in
            let index = filtration.index
            effects.watch(index, in: state)
            state.pending.remove(filtration)
            // The final thumbnail, or why there is none, takes the place of any preview of what had arrived.
            state.arrived.forget(index)
            if state.pending.filtrationsInProgress[index] == nil { state.store.filtrationEnded(index) }
            effects.reconsiderPermits()
            guard case .rendered(let result, let cpuSeconds) = outcome else {
                // Nothing to filter: the download failed, or the stored original is gone. Not an
                // operation that ran, so no event; the photo is fetched again if still wanted.
                _ = state.requesters.take(filtration)
                effects.publishStateChanges(in: state)
                restartIfStillWanted(index, in: &state, &effects)
                return
            }
            state.ledger.add(filterSeconds: cpuSeconds, for: index)
            if filtration.finishedDecodeAhead { state.arrived.countDecodedAhead() }
            let ending: OperationEvent.Outcome
            switch result {
            case .success:
                ending = .finished
                if let thumbnail, filtration.keepsResults { keep(thumbnail, as: .thumbnail, of: index, in: &state, &effects) }
                if !configuration.keepsOriginals { state.store.forgetOriginal(index) }
                forgetDemand(of: index, in: &state, &effects)
            case .failure(.cancelled):
                ending = .cancelled
            case .failure(let error):
                ending = .failed
                state.failures[index] = .init(reason: error.description, detail: error.detail)
                forgetDemand(of: index, in: &state, &effects)
            }
            end(filtration, ending, cpuSeconds: cpuSeconds, in: &state, &effects)
        }
    }

    /// Frees a started operation's track, announces the state it leaves its photo in and its end (its
    /// cost counted for the viewers it worked for), and starts the photo again if its cancelled work
    /// is still wanted. Under the lock.
    private func end(
        _ operation: PhotoOperation, _ outcome: OperationEvent.Outcome, bytes: Int64? = nil, cpuSeconds: Double? = nil,
        in state: inout PipelineState, _ effects: inout Effects
    ) {
        let track = state.pending.end(operation, outcome)
        effects.reconsiderPermits()
        effects.publishStateChanges(in: state)
        let ended = OperationEvent(
            queue: operation.queue, index: operation.index, outcome: outcome, track: track,
            viewers: state.requesters.take(operation), bytes: bytes, cpuSeconds: cpuSeconds)
        // Its cost counts for each viewer it worked for, in the same section as the server's totals.
        state.ledger.account(ended)
        effects.publish(.operation(ended))
        if outcome == .cancelled { restartIfStillWanted(operation.index, in: &state, &effects) }
    }
}

extension TransferProgress {
    /// Bytes this attempt fetched from the network (not those it resumed from).
    var fetched: Int64 { received - resumedFrom }
}
