import Foundation
import HTTPTransfer
import Synchronization

/// What an `ImageDownloader` reports, on the transfer loop's thread.
protocol ImageDownloaderDelegate: PhotoOperationDelegate {
    func downloader(_ downloader: ImageDownloader, didReceive progress: TransferProgress)
    func downloader(_ downloader: ImageDownloader, didFinishWith result: Result<Data, TransferError>)
}

/// The tutorial's `ImageDownloader`: fetches one photo's bytes with libcurl.
///
/// An asynchronous operation: the transfer runs on the shared `TransferLoop`, so a download in flight
/// holds no thread. `cancel()` aborts the transfer itself (the loop drops the easy handle at once),
/// not just the bookkeeping.
final class ImageDownloader: PhotoOperation, @unchecked Sendable {
    private struct Lifecycle {
        var executing = false
        var finished = false
        var handle: TransferHandle?
    }

    private let loop: TransferLoop
    private let limits: TransferLimits
    private weak let delegate: (any ImageDownloaderDelegate)?
    private let lifecycle = Mutex(Lifecycle())
    private let dependents = Mutex<[Operation]>([])

    init(photoRecord: PhotoRecord, loop: TransferLoop, limits: TransferLimits, delegate: any ImageDownloaderDelegate) {
        self.loop = loop
        self.limits = limits
        self.delegate = delegate
        super.init(photoRecord: photoRecord, queue: .download)
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lifecycle.withLock { $0.executing } }
    override var isFinished: Bool { lifecycle.withLock { $0.finished } }

    /// Starts the transfer (on the queue's thread) and returns at once; the operation finishes when
    /// the transfer completes, fails or is cancelled.
    override func start() {
        if isCancelled {
            delegate?.operationWasCancelledBeforeStart(self)
            finish()
            return
        }
        lifecycle.withLock { $0.executing = true }
        didChangeValue(forKey: "isExecuting")
        delegate?.operationDidStart(self)

        let handle = loop.start(
            photoRecord.url,
            limits: limits,
            progress: { [weak self] progress in
                guard let self else { return }
                self.delegate?.downloader(self, didReceive: progress)
            },
            completion: { [weak self] result in
                guard let self else { return }
                self.delegate?.downloader(self, didFinishWith: result)
                self.finish()
            })
        lifecycle.withLock { $0.handle = handle }
        // A cancel that landed between `isCancelled` above and storing the handle had nothing to abort.
        if isCancelled { handle.cancel() }
    }

    /// Keeps `dependent` (an operation that depends on this one) alive until this one has finished.
    ///
    /// swift-corelibs-foundation's `Operation` holds its dependents unretained and visits them when it
    /// finishes; a cancelled dependent that was already released would be a dangling pointer then.
    func keepAlive(_ dependent: Operation) {
        dependents.withLock { $0.append(dependent) }
    }

    /// Marks the operation cancelled and aborts its transfer if one is running.
    override func cancel() {
        super.cancel()
        lifecycle.withLock { $0.handle }?.cancel()
    }

    private func finish() {
        let wasExecuting = lifecycle.withLock { state in
            defer {
                state.executing = false
                state.finished = true
                state.handle = nil
            }
            return state.executing
        }
        if wasExecuting { didChangeValue(forKey: "isExecuting") }
        didChangeValue(forKey: "isFinished")
        dependents.withLock { $0.removeAll() }
    }
}
