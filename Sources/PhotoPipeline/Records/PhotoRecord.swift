/// Where a record reads its state from: the pipeline, which derives it from what it holds and what
/// runs. Takes the pipeline's lock, which never waits for another, so any thread may read.
protocol PhotoStateReading: AnyObject, Sendable {
    /// Photo `index`'s state now.
    func state(of index: Int) -> PhotoState
}

/// One row of the list: the tutorial's `PhotoRecord` (name, URL, state), safe to read from any thread.
///
/// It keeps no state of its own: `state` is derived by the pipeline, each time, from its one record
/// of each fact (what is held, what runs, what failed).
public final class PhotoRecord: Sendable {
    /// Position in the list (records are ordered by name).
    public let index: Int
    /// The photo's name, as the data source gives it.
    public let name: String
    /// The image URL as written in the data source (may be invalid: then the record starts failed).
    public let url: String
    /// What the disk cache files the photo under (normally the URL).
    public let cacheKey: String

    private let states: any PhotoStateReading

    /// A record whose state `states` derives.
    init(index: Int, name: String, url: String, cacheKey: String, states: any PhotoStateReading) {
        self.index = index
        self.name = name
        self.url = url
        self.cacheKey = cacheKey
        self.states = states
    }

    /// The record's current state.
    public var state: PhotoState {
        states.state(of: index)
    }
}

extension PhotoRecord: CustomStringConvertible {
    /// `#3 "Big Ben" (filtered)`.
    public var description: String { "#\(index) \"\(name)\" (\(state.name))" }
}
