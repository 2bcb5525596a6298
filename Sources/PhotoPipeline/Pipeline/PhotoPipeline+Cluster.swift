import Foundation
import Locking

/// Several instances on one pipeline's worth of photos: what the pipeline hears of the others.
///
/// With shared claims (`WorkClaiming.isShared`) an operation whose claim another instance holds does
/// nothing here: the photo waits until the holder lets go, meanwhile showing what the holder reports
/// (`applyRemoteState`), and the holder's results arrive through the shared store (`resultArrived`).
/// Work this instance holds is cancelled only when no instance wants it.
extension PhotoPipeline {
    /// How many photos this instance waits for another instance to finish.
    public var photosWaitedFor: Int {
        core.lock.withLock { $0.remote.waitingCount }
    }

    /// Another instance says photo `index` is now `remote` (its work runs there). Transient states
    /// are shown to this instance's viewers; `filtered` is shown once the thumbnail is in the store
    /// (`resultArrived`), so a viewer never asks for it too soon; a failure is this photo's failure.
    public func applyRemoteState(_ remote: PhotoRecordState, of index: Int) {
        guard entries.indices.contains(index) else { return }
        update { state, effects in
            guard state.failures[index] == nil, state.pending.activity(of: index) == nil else { return }
            effects.watch(index, in: state)
            switch remote {
            case .downloading, .downloaded, .filtering:
                state.remote.report(remote, for: index)
            case .new:
                state.remote.forgetReport(index)
            case .filtered:
                break
            case .failed(let reason, let detail):
                state.remote.forgetReport(index)
                state.failures[index] = .init(reason: reason, detail: detail)
                forgetDemand(of: index, in: &state, &effects)
            }
            effects.publishStateChanges(in: state)
        }
    }

    /// A result named `name` is now in the shared store (kept by this instance or another).
    public func resultArrived(named name: String) {
        guard let key = resultKeys[name] else { return }
        update { state, effects in
            let index = key.index
            effects.watch(index, in: state)
            let showsFiltering = state.photoState(of: index) == .filtering && state.pending.activity(of: index) == nil
            state.store.markOnDisk(key, as: name)
            if key.variant == .preview, showsFiltering { effects.publish(.preview(index: index)) }
            effects.publishStateChanges(in: state)
            settleIfDone(index, in: &state, &effects)
        }
    }

    // MARK: Claims held elsewhere

    func operationMayRun(_ operation: PhotoOperation) -> Bool {
        guard claims.isShared, let results else { return true }
        let product: ImageVariant = operation.queue == .download ? .original : .thumbnail
        return !results.isHeld(diskKey(operation.index, product))
    }

    func operationFoundClaimedElsewhere(_ operation: PhotoOperation) {
        // Claims of one process: nobody to wait for, the operation simply did nothing.
        guard claims.isShared else { return operationWasCancelledBeforeStart(operation) }
        let index = operation.index
        let key = operation.claimKey
        update { state, effects in
            // Withdrawn meanwhile (cancelled, or replaced): nothing to wait for.
            guard state.pending.operations(for: index).contains(where: { $0 === operation }) else { return }
            effects.watch(index, in: state)
            // Its partner (the filtration waiting for this download) has nothing to do here either.
            for other in state.pending.operations(for: index) {
                if other === operation { state.pending.remove(other) } else { withdraw(other, in: &state, &effects) }
            }
            state.remote.wait(for: index)
            effects.publishStateChanges(in: state)
            effects.afterwards { [claims] in
                claims.whenReleased(key) { [weak self] in self?.claimReleasedElsewhere(index) }
            }
        }
    }

    /// The instance that held photo `index`'s work let go (it finished, gave up, or died): take what
    /// it kept, and start what is still to do if a viewer here still wants it.
    func claimReleasedElsewhere(_ index: Int) {
        // Asked outside the lock: the store may ask the database.
        let held: [(ImageCache.Key, String)] = ImageVariant.kept.compactMap { variant in
            let name = diskKey(index, variant)
            return results?.isHeld(name) == true ? (ImageCache.Key(index: index, variant: variant), name) : nil
        }
        update { state, effects in
            effects.watch(index, in: state)
            state.remote.stopWaiting(for: index)
            for (key, name) in held { state.store.markOnDisk(key, as: name) }
            effects.publishStateChanges(in: state)
            settleIfDone(index, in: &state, &effects)
            restartIfStillWanted(index, in: &state, &effects)
        }
    }

    /// A photo whose thumbnail another instance made needs nothing more here: its viewers' interest is
    /// forgotten and what waits in the queues for it is cancelled. Under the lock.
    private func settleIfDone(_ index: Int, in state: inout PipelineState, _ effects: inout Effects) {
        guard state.photoState(of: index).isFinal else { return }
        forgetDemand(of: index, in: &state, &effects)
        for operation in state.pending.operations(for: index) where !state.pending.isRunning(operation) {
            withdraw(operation, in: &state, &effects)
        }
    }

    // MARK: Cluster-wide demand

    /// No viewer here wants photo `index` any more: work already running (its claim held here) goes
    /// on until the other instances say whether one of them waits for it; what has not started is
    /// cancelled now. Returns false when nothing runs (cancel as in one process). Under the lock.
    func askElsewhere(_ index: Int, in state: inout PipelineState, _ effects: inout Effects) -> Bool {
        let operations = state.pending.operations(for: index)
        guard let running = operations.first(where: { state.pending.isRunning($0) }) else { return false }
        for operation in operations where operation !== running {
            withdraw(operation, in: &state, &effects)
        }
        let key = running.claimKey
        effects.afterwards { [claims] in
            claims.isWantedElsewhere(key) { [weak self] wanted in
                guard !wanted else { return }
                self?.cancelIfUnwanted(index)
            }
        }
        return true
    }

    /// Cancels photo `index`'s work unless a viewer here wants it again.
    private func cancelIfUnwanted(_ index: Int) {
        update { state, effects in
            guard !state.demand.isWanted(index) else { return }
            for operation in state.pending.operations(for: index) {
                withdraw(operation, in: &state, &effects)
            }
        }
    }
}
