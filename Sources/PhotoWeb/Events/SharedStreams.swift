import Foundation
import Locking

/// The shared event streams open now, by id (`GET /events/shared` opens one; joins and leaves name it).
///
/// Lock order: a leaf. Streams are closed after it is released.
final class SharedStreams: Sendable {
    /// Viewers one stream carries at most: a browser's tabs and a lab's five lanes, with room to
    /// spare; a bound on what one connection makes the server hold.
    static let maxViewersPerStream = 32

    /// The streams each client holds open (`ClientAddress.group`), at most its share.
    let places: ClientPlaces
    private let streams = Locked<[String: SharedEventStream]>([:])
    /// The process-wide unsent bytes: what waits in a stream's mux counts in them.
    private let unsent: UnsentEventBytes?

    init(unsent: UnsentEventBytes? = nil, perClient: Int = .max) {
        self.unsent = unsent
        places = ClientPlaces("shared event streams", perClient: perClient)
    }

    /// Opens a stream; `cutConnection` closes its connection.
    func open(cutConnection: @escaping @Sendable () -> Void) -> SharedEventStream {
        let stream = SharedEventStream(maxViewers: Self.maxViewersPerStream, unsent: unsent, cutConnection: cutConnection)
        streams.withLock { $0[stream.id] = stream }
        return stream
    }

    /// The open stream `id`, or why there is none.
    func stream(_ id: String) throws(SharedStreamError) -> SharedEventStream {
        guard let stream = streams.withLock({ $0[id] }) else { throw .ended(id) }
        return stream
    }

    /// Streams open now.
    var count: Int { streams.withLock { $0.count } }

    /// Stream `id`'s connection ended: it is forgotten and closed.
    func close(_ id: String) {
        streams.withLock { $0.removeValue(forKey: id) }?.close()
    }

    /// The server is stopping: every stream ends once its viewers' last events are written.
    func finishAll() {
        streams.withLock { Array($0.values) }.forEach { $0.finish() }
    }
}
