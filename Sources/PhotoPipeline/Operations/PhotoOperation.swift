import Foundation
import Synchronization

/// What the pipeline hears from its operations. Called on the operation's own thread
/// (a queue thread, or the transfer loop's thread for downloads), never with the pipeline's lock held.
protocol PhotoOperationDelegate: AnyObject, Sendable {
    /// The operation is about to do its work (it was not cancelled first).
    func operationDidStart(_ operation: PhotoOperation)
    /// The operation was cancelled before it started: it did nothing.
    func operationWasCancelledBeforeStart(_ operation: PhotoOperation)
}

/// Base of `ImageDownloader` and `ImageFiltration`: one photo's work, with a gate that keeps it from
/// starting while every viewer that wants it is scrolling.
///
/// The gate is the per-viewer form of the tutorial's `suspendAllOperations`: operations are shared
/// between viewers, so a whole queue cannot be suspended for one of them. Instead `isReady` is false
/// while no wanting viewer is active, and the queue skips the operation until the gate reopens.
class PhotoOperation: Operation, @unchecked Sendable {
    /// The record this operation works on.
    let photoRecord: PhotoRecord
    /// The queue this operation belongs on.
    let queue: QueueKind
    /// The timeline lane the operation runs in, assigned when it starts.
    let slot = Mutex<Int?>(nil)

    private let gateOpen = Mutex(true)

    init(photoRecord: PhotoRecord, queue: QueueKind) {
        self.photoRecord = photoRecord
        self.queue = queue
        super.init()
        name = "\(queue.rawValue) #\(photoRecord.index)"
    }

    var index: Int { photoRecord.index }

    /// Ready when its dependencies are done and some viewer that wants it is not scrolling;
    /// a cancelled operation is always ready so the queue can retire it.
    override var isReady: Bool {
        guard super.isReady else { return false }
        return isCancelled || gateOpen.withLock { $0 }
    }

    /// Opens or closes the gate, telling the queue so it re-reads `isReady`.
    func setGate(open: Bool) {
        let changed = gateOpen.withLock { gate in
            defer { gate = open }
            return gate != open
        }
        guard changed else { return }
        willChangeValue(forKey: "isReady")
        didChangeValue(forKey: "isReady")
    }
}
