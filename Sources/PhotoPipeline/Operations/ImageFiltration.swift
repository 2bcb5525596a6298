import Foundation
import PhotoCodecs
import Locking

/// The tutorial's `ImageFiltration`: turns a downloaded photo into its sepia thumbnail.
///
/// Depends on the photo's `ImageDownloader` (`addDependency`), so it never starts before the
/// download ends, and the download hands it the bytes (`receiveOriginal`); a photo downloaded earlier
/// is given its original (or where to read it) when the filtration is made. It never asks the
/// pipeline for its input. Runs synchronously on a filtration queue thread (never Swift
/// concurrency's pool) and checks `isCancelled` between decode, filter and encode.
final class ImageFiltration: PhotoOperation, @unchecked Sendable {
    /// Where the bytes to filter come from.
    enum Input: Sendable {
        /// From the download this filtration depends on; nothing if it failed or was cancelled.
        case awaitingDownload
        /// The original bytes, and what the download decoded of them as they arrived (only the end of
        /// it is left to decode), if it did.
        case original(Data, decodedAhead: Locked<ArrivingJPEG?>? = nil)
        /// Read from the results store on the filtration's thread; nil when it holds them no more.
        case stored(@Sendable () -> Data?)
    }

    /// How a filtration that started ended.
    enum Outcome {
        /// There was nothing to filter: the download failed, or the stored original is gone.
        case nothingToFilter
        /// The sepia thumbnail, or why there is none, and the CPU time spent.
        case rendered(Result<EncodedImage, ImageCodecError>, cpuSeconds: Double)
    }

    /// The bytes to filter, or where they will come from; emptied once read.
    private let input: Locked<Input>
    /// Whether the thumbnail was made from the decode ahead (the image's end decoded at the last byte).
    private let finishedAhead = Locked(false)
    /// Whether `main()` ran: Foundation's `start()` skips it for an operation cancelled first.
    private let ranMain = Locked(false)
    private let renderer: SepiaRenderer
    private let thumbnailHeight: Int

    /// A filtration of `photoRecord` into a sepia thumbnail `thumbnailHeight` pixels high.
    init(
        photoRecord: PhotoRecord, input: Input, renderer: SepiaRenderer, thumbnailHeight: Int,
        claims: any WorkClaiming, bounds: SharedBounds? = nil, delegate: (any PhotoOperationDelegate)?
    ) {
        self.input = Locked(input)
        (self.renderer, self.thumbnailHeight) = (renderer, thumbnailHeight)
        super.init(photoRecord: photoRecord, queue: .filtration, claims: claims, bounds: bounds, delegate: delegate)
    }

    /// The download this filtration depends on hands over its bytes, and what it decoded of them as
    /// they arrived; it does so before it finishes.
    func receiveOriginal(_ data: Data, decodedAhead: Locked<ArrivingJPEG?>? = nil) {
        input.withLock { $0 = .original(data, decodedAhead: decodedAhead) }
    }

    /// Runs `main()` unless cancelled first, and reports that cancellation exactly once, however
    /// late it landed (a check before `super.start()` would miss one that lands just after it).
    override func start() {
        super.start()
        if !ranMain.withLock({ $0 }) {
            report(.cancelledBeforeStart(self))
        }
    }

    override func main() {
        ranMain.withLock { $0 = true }
        guard isHeard else { return }
        guard !isCancelled else {
            report(.cancelledBeforeStart(self))
            return
        }
        guard claim() else {
            report(.claimedElsewhere(self))
            return
        }
        // A permit of the shared bounds on the cores; cancelling ends the wait.
        guard waitForPermit(), !isCancelled else {
            releasePermit()
            releaseClaim()
            report(.cancelledBeforeStart(self))
            return
        }
        // Taken out: the bytes are not kept beyond this run.
        let source = input.withLock { input in
            defer { input = .awaitingDownload }
            return input
        }
        let (original, decodedAhead): (Data?, Locked<ArrivingJPEG?>?) = switch source {
        case .awaitingDownload: (nil, nil)
        case .original(let data, let decodedAhead): (data, decodedAhead)
        case .stored(let read): (read(), nil)
        }
        guard let original else {
            // The claim goes back before the end is reported: work started on hearing of it finds the photo free.
            releasePermit()
            releaseClaim()
            report(.filtered(self, .nothingToFilter))
            return
        }
        report(.started(self))
        let clock = ThreadCPUClock()
        let result: Result<EncodedImage, ImageCodecError>
        do {
            result = .success(try renderer.thumbnail(
                of: original, height: thumbnailHeight, isCancelled: { [unowned self] in self.isCancelled },
                decodedAhead: decodedAhead.map { finishing($0, with: original) },
                unfiltered: { [unowned self] in self.report(.preview(self, $0)) }))
        } catch {
            result = .failure(error)
        }
        let cpuSeconds = clock.elapsed
        releasePermit()
        // A thumbnail is kept (in a shared store, written) before the claim goes back; see ImageDownloader.
        if case .success = result {
            report(.filtered(self, .rendered(result, cpuSeconds: cpuSeconds)))
            releaseClaim()
        } else {
            releaseClaim()
            report(.filtered(self, .rendered(result, cpuSeconds: cpuSeconds)))
        }
    }

    /// What finishes the download's decode ahead (`box`) with the whole `original`: the pixels, or nil
    /// to decode `original` afresh (it was made for another size, or cannot finish).
    private func finishing(_ box: Locked<ArrivingJPEG?>, with original: Data) -> () -> PixelBuffer? {
        let (renderer, height) = (renderer, thumbnailHeight)
        return { [finishedAhead] in
            let image = box.withLock { arriving in
                defer { arriving = nil }
                guard let ahead = arriving, renderer.continues(ahead, height: height) else { return PixelBuffer?.none }
                return ahead.finish(original)
            }
            finishedAhead.withLock { $0 = image != nil }
            return image
        }
    }

    /// Whether the thumbnail was made from the download's decode ahead.
    var finishedDecodeAhead: Bool {
        finishedAhead.withLock { $0 }
    }
}
