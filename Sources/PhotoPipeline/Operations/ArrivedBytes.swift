import Foundation
import HTTPTransfer

/// The bytes of a download in progress kept for a preview, and when more are worth one: every
/// `firstStep` bytes until a preview shows something (a progressive JPEG's first scan is a few
/// percent of it), then every quarter of the body (or `laterStep`, if more), so a photo costs a
/// handful of preview decodes, not one per network packet; none after a preview that only the final
/// image betters (a baseline JPEG's Exif thumbnail).
///
/// Bounded per photo, whatever its origin sends: each step is at least a share of the bytes taken
/// so far (without a declared length the steps grow geometrically), at most `maxAttempts` takes,
/// at most `pixelBudget` declared pixels decoded in all, and none once a decode has read the JPEG's
/// end (padding after it would decode the same image again) or found the bytes corrupt.
///
/// A value type with no lock of its own: its downloader keeps it behind a mutex.
struct ArrivedBytes {
    static let firstStep: Int64 = 8 * 1_024
    static let laterStep: Int64 = 32 * 1_024
    /// Most takes of one download's bytes, so most preview decodes of it.
    static let maxAttempts = 16
    /// Most pixels (declared width x height, summed over the decodes) previews of one download may
    /// decode: a decode's cost follows the image's declared size, not the scale it is shown at.
    static let pixelBudget = 400_000_000

    /// The latest bytes taken.
    private(set) var latest: Data?
    private var takenAt: Int64 = 0
    private var attempts = 0
    private var pixelsDecoded = 0
    private var hasShown = false
    private var isDone = false

    /// Whether the bytes at `progress` are worth taking now.
    func wants(_ progress: TransferProgress) -> Bool {
        guard !isDone, attempts < Self.maxAttempts else { return false }
        let step = hasShown
            ? max(Self.laterStep, (progress.expected ?? 0) / 4, takenAt)
            : max(Self.firstStep, takenAt / 4)
        return progress.received - takenAt >= step
    }

    /// Keeps `data`, the body so far.
    mutating func take(_ data: Data) {
        latest = data
        takenAt = Int64(data.count)
        attempts += 1
    }

    /// A preview of these bytes was shown; `last`: no later one would show more.
    mutating func shown(last: Bool) {
        hasShown = true
        isDone = isDone || last
    }

    /// A preview decode of the bytes was made, of an image declaring `pixels`; `final`: later bytes
    /// cannot show more (the decode read the end of the image, or found the bytes corrupt).
    mutating func decoded(pixels: Int, final: Bool) {
        pixelsDecoded += pixels
        isDone = isDone || final || pixelsDecoded >= Self.pixelBudget
    }
}
