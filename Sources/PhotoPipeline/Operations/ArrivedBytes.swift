import Foundation
import HTTPTransfer

/// The bytes of a download in progress kept for a preview and for decoding ahead, and when more are
/// worth taking.
///
/// Previews: every `firstStep` bytes until a preview shows something (a progressive JPEG's first scan
/// is a few percent of it), then every quarter of the body (or `laterStep`, if more), so a photo costs
/// a handful of previews, not one per network packet; none after a preview that only the final image
/// betters (a baseline JPEG's Exif thumbnail).
///
/// Decoding ahead (`ArrivingJPEG`): every sixteenth of the body (at least `decodeStep`), each take
/// decoding only the bytes since the last, so that when the last byte comes little is left to decode.
///
/// Bounded per photo, whatever its origin sends: each step is at least a share of the body (without
/// a declared length, of the bytes taken so far, so the steps grow geometrically), at most
/// `maxAttempts` previews, at most `pixelBudget` declared pixels decoded afresh for them in all, and
/// nothing once a decode has read the JPEG's end (padding after it would decode the same image again)
/// or found the bytes corrupt.
///
/// A value type with no lock of its own: its downloader keeps it behind a mutex.
struct ArrivedBytes {
    static let firstStep: Int64 = 8 * 1_024
    static let laterStep: Int64 = 32 * 1_024
    static let decodeStep: Int64 = 16 * 1_024
    /// Most previews of one download's bytes.
    static let maxAttempts = 16
    /// Most pixels (declared width x height, summed over the decodes) previews decoding the bytes
    /// afresh may decode: such a decode's cost follows the image's declared size, not the scale it is shown at.
    static let pixelBudget = 400_000_000

    /// The latest bytes taken.
    private(set) var latest: Data?
    /// Whether the latest bytes taken are due a preview, not only their decode.
    private(set) var previewDue = false
    private var takenAt: Int64 = 0
    private var previewAt: Int64 = 0
    private var expected: Int64?
    private var attempts = 0
    private var pixelsDecoded = 0
    private var hasShown = false
    private var previewsDone = false
    private var isDone = false

    /// Whether the bytes at `progress` are worth taking now (noting the body's declared length).
    mutating func wants(_ progress: TransferProgress) -> Bool {
        expected = progress.expected
        return !isDone && (wantsPreview(at: progress.received) || wantsDecode(at: progress.received))
    }

    /// Keeps `data`, the body so far.
    mutating func take(_ data: Data) {
        let received = Int64(data.count)
        if wantsPreview(at: received) {
            previewDue = true
            previewAt = received
            attempts += 1
        }
        latest = data
        takenAt = received
    }

    /// The preview due is being made: the next waits for its step.
    mutating func previewTaken() {
        previewDue = false
    }

    /// A preview of these bytes was shown; `last`: no later one would show more.
    mutating func shown(last: Bool) {
        hasShown = true
        previewsDone = previewsDone || last
    }

    /// A decode of the bytes was made, of an image declaring `pixels` (0 for a decode ahead, whose
    /// cost follows the bytes); `final`: later bytes cannot show more (the decode read the end of
    /// the image, or found the bytes corrupt).
    mutating func decoded(pixels: Int, final: Bool) {
        pixelsDecoded += pixels
        isDone = isDone || final
        previewsDone = previewsDone || pixelsDecoded >= Self.pixelBudget
    }

    private func wantsPreview(at received: Int64) -> Bool {
        guard !previewsDone, attempts < Self.maxAttempts else { return false }
        let step = hasShown
            ? max(Self.laterStep, (expected ?? 0) / 4, previewAt)
            : max(Self.firstStep, previewAt / 4)
        return received - previewAt >= step
    }

    private func wantsDecode(at received: Int64) -> Bool {
        let step = expected.map { max(Self.decodeStep, $0 / 16) } ?? max(Self.decodeStep, takenAt / 4)
        return received - takenAt >= step
    }
}
