import Locking

/// Everything the pipeline knows, each fact kept by one owner: who wants what (`demand`), what is
/// queued and what runs where (`pending`), what the work cost (`ledger`), what is held where
/// (`store`), and why photos failed (`failures`). A photo's state is derived from these.
struct PipelineState {
    /// Why a photo failed, for people and for the log.
    struct Failure: Equatable {
        var reason: String
        var detail: String = ""
    }

    var demand = Demand()
    var pending: PendingOperations
    /// Which viewers each operation in `pending` works for.
    var requesters = OperationRequesters()
    var ledger = WorkLedger()
    var store: ImageStore
    /// The failed photos; only `retry` forgets one.
    var failures: [Int: Failure] = [:]
    /// Work other instances hold, and what they said of it (empty in one process).
    var remote = RemoteWork()
    /// How many photos are in each state (kept from the published changes).
    var census = StateCensus()
    /// Previews of photos still downloading, from the bytes arrived so far.
    var arrived = ArrivedPreviews()
    /// How many times the list started cold: a disk read begun before the last one is not kept.
    var coldStarts = 0

    /// Photo `index`'s state: failed, else what runs for it, else what the store holds of it (or
    /// what another instance working on it said, when that is further on).
    func photoState(of index: Int) -> PhotoRecordState {
        let local = localState(of: index)
        return local.isResting && failures[index] == nil ? remote.state(of: index, resting: local) : local
    }

    /// Photo `index`'s state from what this instance knows and does alone (never another's report):
    /// what decides the work to start here.
    func localState(of index: Int) -> PhotoRecordState {
        if let failure = failures[index] {
            return .failed(reason: failure.reason, detail: failure.detail)
        }
        return pending.activity(of: index) ?? store.restingState(of: index)
    }

    /// Whether photo `index` is at rest: not failed, nothing running for it; its state is then the store's.
    func isAtRest(_ index: Int) -> Bool {
        failures[index] == nil && pending.activity(of: index) == nil
    }
}

/// The pipeline's state behind its one lock.
///
/// Lock order: this lock is a leaf. While it is held only value types and atomics are touched (an
/// operation is made under it, but no shared operation, queue, store, publisher or record is called):
/// a locked section returns `Effects`, which are carried out after it is released.
final class PipelineCore: Sendable {
    let lock: Locked<PipelineState>

    init(_ state: sending PipelineState) {
        lock = Locked(state)
    }
}
