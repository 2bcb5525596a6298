/// Where a photo is on its way from URL to sepia thumbnail: the tutorial's `PhotoRecordState`
/// (new, downloaded, filtered, failed) plus the transient states a viewer wants to see.
public enum PhotoRecordState: Sendable, Equatable {
    /// Nothing done yet (or the work was cancelled before anything was kept).
    case new
    /// A transfer is running; `progress` is 0...1 once the size is known.
    case downloading(progress: Double?)
    /// The original bytes are here; the sepia thumbnail is not.
    case downloaded
    /// The sepia thumbnail is being made.
    case filtering
    /// The sepia thumbnail is ready.
    case filtered
    /// The photo cannot be shown; `reason` says why in words a viewer understands, `detail` the
    /// technical text behind it (the library's message, the bytes seen), for the log and on hover.
    case failed(reason: String, detail: String = "")

    /// The state's name as the web contract spells it (`new`, `downloading`, ...).
    public var name: String {
        switch self {
        case .new: "new"
        case .downloading: "downloading"
        case .downloaded: "downloaded"
        case .filtering: "filtering"
        case .filtered: "filtered"
        case .failed: "failed"
        }
    }

    /// True for the states a cancelled operation may leave a record in.
    public var isResting: Bool {
        switch self {
        case .new, .downloaded, .filtered, .failed: true
        case .downloading, .filtering: false
        }
    }

    /// True when no more work can change the record.
    public var isFinal: Bool {
        switch self {
        case .filtered, .failed: true
        default: false
        }
    }
}
