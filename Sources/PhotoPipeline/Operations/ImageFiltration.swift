import Foundation
import PhotoCodecs
import Synchronization

/// What an `ImageFiltration` reports, on the filtration queue's thread.
protocol ImageFiltrationDelegate: PhotoOperationDelegate {
    /// The downloaded bytes to filter, or nil when there is nothing to filter (the download failed
    /// or was cancelled, or its bytes were evicted).
    func originalBytes(for filtration: ImageFiltration) -> Data?
    /// The unfiltered thumbnail is ready; the sepia one follows.
    func filtration(_ filtration: ImageFiltration, didMakePreview preview: EncodedImage)
    func filtration(
        _ filtration: ImageFiltration,
        didFinishWith result: Result<EncodedImage, ImageCodecError>,
        cpuSeconds: Double)
    /// The operation started but found nothing to filter.
    func filtrationFoundNothingToDo(_ filtration: ImageFiltration)
}

/// The tutorial's `ImageFiltration`: turns a downloaded photo into its sepia thumbnail.
///
/// Depends on the photo's `ImageDownloader` (`addDependency`), so it never starts before the
/// download ends. Runs synchronously on a filtration queue thread (never Swift concurrency's pool)
/// and checks `isCancelled` between decode, filter and encode.
final class ImageFiltration: PhotoOperation, @unchecked Sendable {
    private let renderer: SepiaRenderer
    private let thumbnailHeight: Int
    private weak let delegate: (any ImageFiltrationDelegate)?

    init(photoRecord: PhotoRecord, renderer: SepiaRenderer, thumbnailHeight: Int, delegate: any ImageFiltrationDelegate) {
        self.renderer = renderer
        self.thumbnailHeight = thumbnailHeight
        self.delegate = delegate
        super.init(photoRecord: photoRecord, queue: .filtration)
    }

    /// Whether `main()` ran: Foundation's `start()` skips it for an operation cancelled first.
    private let ranMain = Mutex(false)

    /// Runs `main()` unless cancelled first, and reports that cancellation exactly once, however
    /// late it landed (a check before `super.start()` would miss one that lands just after it).
    override func start() {
        super.start()
        if !ranMain.withLock({ $0 }) {
            delegate?.operationWasCancelledBeforeStart(self)
        }
    }

    override func main() {
        ranMain.withLock { $0 = true }
        guard let delegate else { return }
        guard !isCancelled else {
            delegate.operationWasCancelledBeforeStart(self)
            return
        }
        guard let original = delegate.originalBytes(for: self) else {
            delegate.filtrationFoundNothingToDo(self)
            return
        }
        delegate.operationDidStart(self)
        let clock = ThreadCPUClock()
        let result: Result<EncodedImage, ImageCodecError>
        do {
            result = .success(try renderer.thumbnail(
                of: original, height: thumbnailHeight, isCancelled: { [unowned self] in self.isCancelled },
                unfiltered: { delegate.filtration(self, didMakePreview: $0) }))
        } catch {
            result = .failure(error)
        }
        delegate.filtration(self, didFinishWith: result, cpuSeconds: clock.elapsed)
    }
}
