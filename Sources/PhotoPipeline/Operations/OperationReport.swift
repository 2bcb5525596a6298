import PhotoCodecs
import HTTPTransfer

/// What an operation tells the pipeline, one case per thing that happens, each carrying the
/// operation it is about: one type for both kinds of operation, through one call.
enum OperationReport {
    /// The operation is about to do its work (it was not cancelled first).
    case started(PhotoOperation)
    /// The operation was cancelled before it started: it did nothing.
    case cancelledBeforeStart(PhotoOperation)
    /// Another runner holds the operation's work (or has done it): it did nothing, and holds no claim.
    case claimedElsewhere(PhotoOperation)
    /// More of a download's body arrived.
    case progress(ImageDownloader, TransferProgress)
    /// More of the body arrived while the photo is on screen: `arrivedBytes()` holds it for a preview.
    case arrivedBytes(ImageDownloader)
    /// The transfer ended; a success's bytes were handed to the filtration first.
    case downloaded(ImageDownloader, TransferOutcome)
    /// A filtration's unfiltered thumbnail is ready; the sepia one follows.
    case preview(ImageFiltration, EncodedImage)
    /// A filtration ended.
    case filtered(ImageFiltration, ImageFiltration.Outcome)
}

/// What the pipeline hears from its operations: their reports, and one question. Called on the
/// operation's own thread (a queue thread, or the transfer loop's thread for downloads), never with
/// the pipeline's lock held.
protocol PhotoOperationDelegate: AnyObject, Sendable {
    /// An operation reports what happened to it.
    func operationReported(_ report: OperationReport)
    /// The operation holds its claim: whether its work is still to do (another runner may have
    /// finished it since the operation was made). Without a lock; may ask a shared store.
    func operationMayRun(_ operation: PhotoOperation) -> Bool
}
