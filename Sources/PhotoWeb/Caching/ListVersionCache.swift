import Locking

/// Values made from the photo list's rows (the `GET /api/photos` bodies, the page's first screen),
/// kept for the list's current version only: a request while the list is unchanged reuses them, and
/// the first request after a change makes them again. Never serves a value older than the version the
/// caller read (`ListVersion`).
///
/// Lock: a leaf; `make` runs outside it (two requests may make the same value once each).
final class ListVersionCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var version: ListVersion?
        var values: [Key: Value] = [:]
    }

    /// The most values kept for one version: keys come from clients (`?from=&limit=`, `?row=`), so a
    /// client naming many of them fills this and then makes its own each time.
    let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The value kept for `key` at `version`, or nil when none is (nothing is made).
    func kept(for key: Key, at version: ListVersion) -> Value? {
        state.withLock { $0.version == version ? $0.values[key] : nil }
    }

    /// The value for `key` at `version`: the kept one, or `make()`'s, kept unless a newer version's are.
    func value(for key: Key, at version: ListVersion, make: () -> Value) -> Value {
        if let kept = kept(for: key, at: version) { return kept }
        let value = make()
        state.withLock { state in
            if version != state.version {
                guard version.supersedes(state.version) else { return }
                state = State(version: version)
            }
            if state.values.count < capacity { state.values[key] = value }
        }
        return value
    }
}
