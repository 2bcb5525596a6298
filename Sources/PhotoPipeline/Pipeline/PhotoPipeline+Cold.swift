import Locking

/// Starting cold (issue 37): the list as a server with an empty cache would show it, without a
/// restart, so a demo shows the rows load again. The memory warning's reset, and more: the results
/// store is emptied too, and failures the work met are forgotten (those of the list's own entries stay).
extension PhotoPipeline {
    /// Whether the list can start cold: not while instances share their work and results (a cluster),
    /// whose store the others read.
    public var canStartCold: Bool { !claims.isShared }

    /// Cancels all queued and running work (what it still delivers is dropped), forgets every viewer's
    /// wants, empties memory, the bytes kept for resuming and the results store, and forgets the
    /// failures work met. Every row is `new` again (or its entry's failure) and is worked on when next
    /// wanted; viewers hear each change as a `photo` event. Returns how many rows changed state, or nil
    /// when the list cannot start cold (`canStartCold`).
    ///
    /// Blocks until the results store's files are gone: call it off the cooperative pool.
    @discardableResult
    public func startCold() -> Int? {
        guard canStartCold else { return nil }
        let changed: Int = update { state, effects in
            for operation in state.pending.removeAll() {
                // What they still deliver (a preview, a thumbnail, an original, bytes to resume from) would refill the list.
                operation.discardResults()
                effects.cancel(operation)
            }
            state.demand.forgetAllWants()
            state.arrived.forgetAll()
            // A read of the results store begun before this is not kept (`keep(_:as:of:readAt:)`).
            state.coldStarts += 1
            for index in state.failures.keys.sorted() where entries[index].problem == nil {
                effects.watch(index, in: state)
                state.failures[index] = nil
            }
            effects.storeChanged(state.store.removeAll())
            let before = effects.eventCount
            effects.publishStateChanges(in: state)
            return effects.eventCount - before
        }
        // After the lock: the store empties itself behind the writes handed to it before.
        results?.removeAll()
        return changed
    }

    /// How many times the list started cold so far.
    var coldStarts: Int {
        core.lock.withLock { $0.coldStarts }
    }
}
