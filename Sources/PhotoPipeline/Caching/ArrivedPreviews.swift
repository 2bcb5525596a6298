import PhotoCodecs

/// Sepia previews of photos still downloading, made from the bytes arrived so far: held apart from
/// the image cache and never written, so a preview is never served as the final image, and dropped
/// once the photo's work ends. At most one is made at a time per photo.
///
/// A value type with no lock of its own: the pipeline keeps it behind its one lock.
struct ArrivedPreviews {
    private struct Entry {
        var image: CachedImage?
        /// Increases with each preview kept: the page's cache key for it.
        var sequence = 0
        var scans = 0
        var rowsShown = 0.0
        var making = false
    }

    private var entries: [Int: Entry] = [:]
    /// Preview decodes made so far, of every photo: a server-wide total, for the stats.
    private(set) var decodes = 0

    /// Notes that a preview of photo `index` is being made; false when one already is.
    mutating func begin(_ index: Int) -> Bool {
        guard entries[index]?.making != true else { return false }
        entries[index, default: Entry()].making = true
        return true
    }

    /// Ends the making of photo `index`'s preview: keeps `preview` if it shows more than the one held
    /// (more scans, or more rows), and returns its sequence number then; nil if nothing was kept.
    mutating func end(_ index: Int, with preview: ArrivedPreview?) -> Int? {
        guard var entry = entries[index] else { return nil }
        entry.making = false
        defer { entries[index] = entry }
        guard let preview, preview.scans > entry.scans || preview.rowsShown > entry.rowsShown + 0.01 else { return nil }
        entry.image = CachedImage(data: preview.image.data, format: preview.image.format)
        entry.sequence += 1
        (entry.scans, entry.rowsShown) = (preview.scans, preview.rowsShown)
        return entry.sequence
    }

    /// The latest preview of photo `index`, if one is held.
    func image(of index: Int) -> CachedImage? {
        entries[index]?.image
    }

    /// The sequence number of photo `index`'s latest preview, if one is held.
    func sequence(of index: Int) -> Int? {
        entries[index].flatMap { $0.image == nil ? nil : $0.sequence }
    }

    /// Counts one preview decode made.
    mutating func countDecode() {
        decodes += 1
    }

    /// Final thumbnails made from a decode ahead (`ArrivingJPEG`) so far: a server-wide total, for the stats.
    private(set) var decodedAhead = 0

    /// Counts one final thumbnail made from a decode ahead.
    mutating func countDecodedAhead() {
        decodedAhead += 1
    }

    /// Drops photo `index`'s preview: its work ended (a preview being made then is not kept).
    mutating func forget(_ index: Int) {
        entries[index] = nil
    }

    /// Drops every preview.
    mutating func forgetAll() {
        entries.removeAll()
    }
}
