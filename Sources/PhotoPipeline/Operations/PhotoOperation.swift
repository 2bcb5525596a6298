import Foundation
import Locking
import Synchronization

/// Base of `ImageDownloader` and `ImageFiltration`: one photo's work, with a gate that keeps it from
/// starting while every viewer that wants it is scrolling.
///
/// The gate is the per-viewer form of the tutorial's `suspendAllOperations`: operations are shared
/// between viewers, so a whole queue cannot be suspended for one of them. Instead `isReady` is false
/// while no wanting viewer is active, and the queue skips the operation until the gate reopens.
///
/// The pipeline decides the gate and the priority under its lock (`decide`, plain atomic stores) and
/// tells the queue after releasing it (`applyDecision`), so its lock never calls into Foundation.
class PhotoOperation: Operation, @unchecked Sendable {
    /// The record this operation works on.
    let photoRecord: PhotoRecord
    /// The queue this operation belongs on.
    let queue: QueueKind
    /// Who may run this work (single flight across runners).
    private let claims: any WorkClaiming
    /// Hears what happens to this operation (`report`).
    private weak let delegate: (any PhotoOperationDelegate)?

    /// The process-wide bounds this operation takes a permit of before it works, if any.
    let bounds: SharedBounds?
    /// A wait for a permit not granted yet, and whether a permit is held (`PhotoOperation+Permits`).
    let permitWait = Locked<WorkPermits.Ticket?>(nil)
    let permitHeld = Atomic(false)

    private let gateOpen = Atomic(true)
    private let decidedPriority = Atomic(Operation.QueuePriority.normal.rawValue)
    private let discardsResults = Atomic(false)

    init(
        photoRecord: PhotoRecord, queue: QueueKind, claims: any WorkClaiming, bounds: SharedBounds? = nil,
        delegate: (any PhotoOperationDelegate)? = nil
    ) {
        self.photoRecord = photoRecord
        self.queue = queue
        self.claims = claims
        self.bounds = bounds
        self.delegate = delegate
        super.init()
        name = "\(queue.rawValue) #\(photoRecord.index)"
    }

    var index: Int { photoRecord.index }

    /// Whether anyone still hears this operation: work whose pipeline is gone is not done.
    var isHeard: Bool { delegate != nil }

    /// Tells the delegate what happened, on this operation's thread.
    func report(_ report: OperationReport) {
        delegate?.operationReported(report)
    }

    /// Ready when its dependencies are done and some viewer that wants it is not scrolling;
    /// a cancelled operation is always ready so the queue can retire it.
    override var isReady: Bool {
        guard super.isReady else { return false }
        return isCancelled || gateOpen.load(ordering: .acquiring)
    }

    /// Marks the operation cancelled; a wait for a permit of the shared bounds ends at once.
    override func cancel() {
        super.cancel()
        withdrawPermitWait()
    }

    /// Records the pipeline's decision (a nil `priority` keeps the last one); returns true when the
    /// queue must hear of it (`applyDecision`). Lock-free: called under the pipeline's lock, so
    /// decisions are ordered as the lock orders them.
    func decide(priority: RowPriority?, mayStart: Bool) -> Bool {
        var changed = gateOpen.exchange(mayStart, ordering: .acquiringAndReleasing) != mayStart
        if let priority {
            let value = priority.queuePriority.rawValue
            changed = decidedPriority.exchange(value, ordering: .acquiringAndReleasing) != value || changed
        }
        return changed
    }

    /// Tells the queue the latest decision: the priority, and that `isReady` may have changed. Never
    /// under the pipeline's lock. Two threads applying decisions in the wrong order still leave the
    /// latest in place: each one re-reads after setting.
    func applyDecision() {
        var applied: Int
        repeat {
            applied = decidedPriority.load(ordering: .acquiring)
            queuePriority = Operation.QueuePriority(rawValue: applied) ?? .normal
        } while decidedPriority.load(ordering: .acquiring) != applied
        willChangeValue(forKey: "isReady")
        didChangeValue(forKey: "isReady")
    }

    /// Whether the last decision was for a row some viewer has on screen and is not scrolling past:
    /// the rows worth a preview of what has arrived. Lock-free.
    var isForARowOnScreen: Bool {
        gateOpen.load(ordering: .acquiring)
            && decidedPriority.load(ordering: .acquiring) == RowPriority.visible.queuePriority.rawValue
    }

    /// False once the pipeline gave up on what this operation produces (memory is short): whatever
    /// it still delivers is not kept.
    var keepsResults: Bool {
        !discardsResults.load(ordering: .acquiring)
    }

    /// Gives up on what this operation produces from now on. Lock-free: decided under the pipeline's lock.
    func discardResults() {
        discardsResults.store(true, ordering: .releasing)
    }

    // MARK: Single flight

    /// The name of this photo's work of this kind among runners.
    var claimKey: String { "\(queue.rawValue) \(photoRecord.cacheKey)" }

    /// Takes the right to run this photo's work of this kind, when it is still to do; false while
    /// another runner has it, or when another runner has done it (the claim is then given back).
    func claim() -> Bool {
        guard claims.claim(claimKey) else { return false }
        guard delegate?.operationMayRun(self) ?? true else {
            claims.release(claimKey)
            return false
        }
        return true
    }

    /// Gives the right back once the work has ended.
    func releaseClaim() {
        claims.release(claimKey)
    }
}
