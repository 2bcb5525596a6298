import Foundation
import HTTPTransfer

/// The bytes of a download in progress kept for a preview, and when more are worth one: every
/// `firstStep` bytes until a preview shows something (a progressive JPEG's first scan is a few
/// percent of it), then every quarter of the body (or `laterStep`, if more), so a photo costs a
/// handful of preview decodes, not one per network packet; none after a preview that only the final
/// image betters (a baseline JPEG's Exif thumbnail).
///
/// A value type with no lock of its own: its downloader keeps it behind a mutex.
struct ArrivedBytes {
    static let firstStep: Int64 = 8 * 1_024
    static let laterStep: Int64 = 32 * 1_024

    /// The latest copy taken.
    private(set) var latest: Data?
    private var takenAt: Int64 = 0
    private var hasShown = false
    private var isDone = false

    /// Whether the bytes at `progress` are worth taking now.
    func wants(_ progress: TransferProgress) -> Bool {
        guard !isDone else { return false }
        let step = hasShown ? max(Self.laterStep, (progress.expected ?? 0) / 4) : Self.firstStep
        return progress.received - takenAt >= step
    }

    /// Keeps `data`, the body so far.
    mutating func take(_ data: Data) {
        latest = data
        takenAt = Int64(data.count)
    }

    /// A preview of these bytes was shown; `last`: no later one would show more.
    mutating func shown(last: Bool) {
        hasShown = true
        isDone = isDone || last
    }
}
