import Locking
import PhotoTransport

/// One place a client holds (`ClientPlaces.take`), given back once: by `release()`, or when the
/// hold is dropped, so a response whose body never ran (its connection closed first) gives it back too.
final class ClientPlaceHold: Sendable {
    private let places: ClientPlaces
    /// The client holding it (a `ClientAddress.group`).
    let client: String
    private let released = Locked<Bool>(false)

    /// Takes a place of `places` for `client`; the 429 saying why when it holds its share.
    init(_ places: ClientPlaces, for client: String) throws(APIError) {
        guard places.take(client) else { throw places.refusal(client) }
        self.places = places
        self.client = client
    }

    /// Gives the place back (again: nothing).
    func release() {
        let first = released.withLock { released in
            defer { released = true }
            return !released
        }
        if first { places.give(client) }
    }

    deinit { release() }
}
