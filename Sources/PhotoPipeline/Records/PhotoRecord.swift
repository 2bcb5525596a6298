import Synchronization

/// One row of the list: the tutorial's `PhotoRecord` (name, URL, state), safe to read from any thread.
///
/// Only the pipeline changes `state`, under its own lock; readers get a consistent snapshot.
public final class PhotoRecord: Sendable {
    /// Position in the list (records are ordered by name).
    public let index: Int
    /// The photo's name, as the data source gives it.
    public let name: String
    /// The image URL as written in the data source (may be invalid: then the record starts failed).
    public let url: String
    /// What the disk cache files the photo under (normally the URL).
    public let cacheKey: String

    private let _state: Mutex<PhotoState>

    /// Creates a record in `state` (`new` unless the entry is already known to be unusable).
    public init(index: Int, name: String, url: String, cacheKey: String? = nil, state: PhotoState = .new) {
        self.index = index
        self.name = name
        self.url = url
        self.cacheKey = cacheKey ?? url
        self._state = Mutex(state)
    }

    /// The record's current state.
    public var state: PhotoState {
        _state.withLock { $0 }
    }

    /// Sets the state; returns false when it was already `newState` (so no event is owed).
    @discardableResult
    func setState(_ newState: PhotoState) -> Bool {
        _state.withLock { state in
            guard state != newState else { return false }
            state = newState
            return true
        }
    }
}

extension PhotoRecord: CustomStringConvertible {
    /// `#3 "Big Ben" (filtered)`.
    public var description: String { "#\(index) \"\(name)\" (\(state.name))" }
}
