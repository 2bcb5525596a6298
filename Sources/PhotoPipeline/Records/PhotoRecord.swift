/// One row of the list: the tutorial's `PhotoRecord` (name, URL, state), as a value read at one moment.
///
/// The pipeline derives a photo's state from its one record of each fact (what is held, what runs,
/// what failed); a record is a copy of it taken under the pipeline's lock (`PhotoPipeline.record(_:)`,
/// or `records(in:)` for many rows read at the same moment). For a later state, read it again.
public struct PhotoRecord: Sendable, Equatable {
    /// Position in the list (records are ordered by name).
    public let index: Int
    /// The photo's name, as the data source gives it.
    public let name: String
    /// The image URL as written in the data source (may be invalid: then the record starts failed).
    public let url: String
    /// What the disk cache files the photo under (normally the URL).
    public let cacheKey: String
    /// The record's state when it was read.
    public let state: PhotoRecordState

    /// Entry `entry` at `index` of the list, in `state`.
    init(index: Int, entry: PhotoEntry, state: PhotoRecordState) {
        (self.index, name, url, cacheKey, self.state) = (index, entry.name, entry.url, entry.cacheKey, state)
    }
}

extension PhotoRecord: CustomStringConvertible {
    /// `#3 "Big Ben" (filtered)`.
    public var description: String { "#\(index) \"\(name)\" (\(state.name))" }
}
