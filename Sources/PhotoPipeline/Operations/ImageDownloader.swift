import Foundation
import HTTPTransfer
import Locking
import PhotoCodecs

/// The tutorial's `ImageDownloader`: fetches one photo's bytes with libcurl and hands them on to the
/// `ImageFiltration` that depends on it.
///
/// An asynchronous operation: the transfer runs on the shared `TransferLoop`, so a download in flight
/// holds no thread. `cancel()` aborts the transfer itself (the loop drops the easy handle at once),
/// not just the bookkeeping. Started with the bytes an earlier, cancelled attempt kept, it asks the
/// origin only for the rest.
final class ImageDownloader: PhotoOperation, @unchecked Sendable {
    private struct Lifecycle {
        var executing = false
        var finished = false
        var claimed = false
        var handle: TransferHandle?
        /// Gets the bytes; kept alive until this operation has finished (swift-corelibs-foundation
        /// holds an operation's dependents unretained and visits them when it finishes).
        var filtration: ImageFiltration?
    }

    /// What an earlier, cancelled attempt kept: the transfer asks only for the rest.
    let resumingFrom: ResumableData?
    private let loop: TransferLoop
    private let limits: TransferLimits
    private let lifecycle: Locked<Lifecycle>
    /// The latest bytes arrived taken for a preview, and when the next are worth taking.
    private let arrived = Locked(ArrivedBytes())
    /// The photo decoded as its bytes arrive (made at the first take), handed to the filtration with
    /// the last byte so that only the end of the image is left to decode then. Behind a lock of its
    /// own, held while it decodes and for nothing else.
    let decodedAhead = Locked<ArrivingJPEG?>(nil)

    /// A download of `photoRecord` whose bytes go to `filtration` (which depends on it).
    init(
        photoRecord: PhotoRecord, resumingFrom: ResumableData?, handingOnTo filtration: ImageFiltration?,
        loop: TransferLoop, limits: TransferLimits, claims: any WorkClaiming, bounds: SharedBounds? = nil,
        delegate: (any PhotoOperationDelegate)?
    ) {
        self.resumingFrom = resumingFrom
        self.loop = loop
        self.limits = limits
        lifecycle = Locked(Lifecycle(filtration: filtration))
        super.init(photoRecord: photoRecord, queue: .download, claims: claims, bounds: bounds, delegate: delegate)
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lifecycle.withLock { $0.executing } }
    override var isFinished: Bool { lifecycle.withLock { $0.finished } }

    /// Starts the transfer (on the queue's thread) and returns at once; the operation finishes when
    /// the transfer completes, fails or is cancelled.
    override func start() {
        guard !isCancelled else {
            report(.cancelledBeforeStart(self))
            finish()
            return
        }
        guard claim() else {
            report(.claimedElsewhere(self))
            finish()
            return
        }
        lifecycle.withLock { state in
            state.executing = true
            state.claimed = true
        }
        didChangeValue(forKey: "isExecuting")
        // A transfer permit of the shared bounds first: waiting for one holds no thread.
        takePermit { [weak self] granted in self?.beginTransfer(granted) }
    }

    /// Starts the transfer once a permit is held; a download cancelled while it waited ends as never started.
    private func beginTransfer(_ granted: Bool) {
        guard granted, !isCancelled else {
            report(.cancelledBeforeStart(self))
            finish()
            return
        }
        report(.started(self))

        let handle = loop.start(
            photoRecord.url,
            limits: limits,
            resumingFrom: resumingFrom,
            progress: { [weak self] progress in
                guard let self else { return }
                self.report(.progress(self, progress))
            },
            arrived: ArrivedBytesWatcher(
                wants: { [weak self] progress in self?.wantsArrivedBytes(progress) ?? false },
                take: { [weak self] data in
                    guard let self else { return }
                    self.arrived.withLock { $0.take(data) }
                    self.report(.arrivedBytes(self))
                }),
            completion: { [weak self] outcome in
                guard let self else { return }
                self.finish(with: outcome)
            })
        lifecycle.withLock { $0.handle = handle }
        // A cancel that landed between `isCancelled` above and storing the handle had nothing to abort.
        if isCancelled { handle.cancel() }
    }

    /// Whether the bytes so far are worth a preview now: only for a row on screen, at the pace `ArrivedBytes` sets.
    private func wantsArrivedBytes(_ progress: TransferProgress) -> Bool {
        isForARowOnScreen && arrived.withLock { $0.wants(progress) }
    }

    /// The latest bytes arrived taken (nil before any was taken), and whether a preview of them is due
    /// (then it is counted as made: the next waits for its step).
    func takeArrivedBytes() -> (data: Data, preview: Bool)? {
        arrived.withLock { arrived in
            defer { arrived.previewTaken() }
            return arrived.latest.map { ($0, arrived.previewDue) }
        }
    }

    /// How many bytes the latest take holds (0 before any).
    func arrivedByteCount() -> Int {
        arrived.withLock { $0.latest?.count ?? 0 }
    }

    /// A preview was shown: the next needs more bytes (see `ArrivedBytes`); none after the `last`.
    func arrivedPreviewShown(last: Bool) {
        arrived.withLock { $0.shown(last: last) }
    }

    /// A preview decode of the bytes was made (see `ArrivedBytes.decoded`).
    func arrivedBytesDecoded(pixels: Int, final: Bool) {
        arrived.withLock { $0.decoded(pixels: pixels, final: final) }
    }

    /// Marks the operation cancelled and aborts its transfer if one is running.
    override func cancel() {
        super.cancel()
        lifecycle.withLock { $0.handle }?.cancel()
    }

    /// Hands a success's bytes forward to the filtration, tells the delegate and gives the claim
    /// back, then finishes. A success is kept (in a shared store, written) before the claim goes
    /// back, so a runner elsewhere that finds the photo free finds its original too; any other end
    /// gives the claim back first, so that work started on hearing of it finds the photo free.
    private func finish(with outcome: TransferOutcome) {
        releasePermit()
        if case .success(let data) = outcome.result {
            lifecycle.withLock { $0.filtration }?.receiveOriginal(data, decodedAhead: decodedAhead)
            report(.downloaded(self, outcome))
            releaseClaimIfHeld()
        } else {
            releaseClaimIfHeld()
            report(.downloaded(self, outcome))
        }
        finish()
    }

    private func releaseClaimIfHeld() {
        let wasClaimed = lifecycle.withLock { state in
            defer { state.claimed = false }
            return state.claimed
        }
        if wasClaimed { releaseClaim() }
    }

    private func finish() {
        releaseClaimIfHeld()
        releasePermit()
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
        lifecycle.withLock { $0.filtration = nil }
    }
}
