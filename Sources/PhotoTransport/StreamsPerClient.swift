import NIOCore
import Synchronization

/// HTTP/2 streams open at once per client across all of its connections (`--streams-per-client`).
/// `--max-streams` bounds one connection and `--connections-per-client` the connections, but their
/// product (64 x 100 at the defaults) is no bound: each stream may be a request the server works
/// on. A stream past its client's budget is reset with `REFUSED_STREAM` before any of it is read
/// (RFC 9113 8.7: nothing was processed, so a client may send it again), as a stream past
/// `--max-streams` is. Clients are counted by `ClientAddress.group` (an IPv6 /64 is one client); a
/// trusted proxy's streams are not counted, as its connections are not: they carry many clients.
///
/// Lock order: `ClientPlaces`' lock, a leaf; a stream's place is given back from its close future,
/// outside it.
final class StreamsPerClient: Sendable {
    /// What a new stream gets.
    enum Admission: Equatable {
        /// Counted against its client until it closes (or not counted: a trusted proxy's).
        case admitted
        /// Past its client's budget: to be reset with `REFUSED_STREAM`; `refusedSoFar` counts every
        /// refusal since start, for a log line that does not flood.
        case refused(refusedSoFar: Int)
    }

    /// Streams one client holds open at once.
    var limit: Int { places.perClient }
    private let places: ClientPlaces
    private let refusals = Atomic<Int>(0)

    init(limit: Int) {
        places = ClientPlaces("HTTP/2 streams", perClient: limit)
    }

    /// Counts `stream` against `client` (a `ClientAddress.group`; nil for a trusted proxy's
    /// connection) until the stream closes.
    func admit(_ stream: any Channel, client: String?) -> Admission {
        guard let client else { return .admitted }
        guard places.take(client) else {
            return .refused(refusedSoFar: refusals.add(1, ordering: .relaxed).newValue)
        }
        let places = places
        stream.closeFuture.whenComplete { _ in places.give(client) }
        return .admitted
    }

    /// Streams `client` holds open now.
    func open(for client: String) -> Int {
        places.count(client)
    }

    /// Streams refused since start.
    var refused: Int { refusals.load(ordering: .relaxed) }
}
