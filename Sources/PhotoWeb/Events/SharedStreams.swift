import Foundation
import Locking
import PhotoTransport

/// The shared event streams open now, by id (`GET /events/shared` opens one; joins and leaves name it).
/// A client holds at most its share of them open (`places`); past it, its own stream that has carried
/// no viewer for longest makes room (`hold(for:)`), else it gets 429.
///
/// Lock order: a leaf. Streams are asked and closed after it is released.
final class SharedStreams: Sendable {
    /// Viewers one stream carries at most: a browser's tabs and a lab's five lanes, with room to
    /// spare; a bound on what one connection makes the server hold.
    static let maxViewersPerStream = 32

    /// The streams each client holds open (`ClientAddress.group`), at most its share.
    let places: ClientPlaces
    /// The streams each client holds open beyond its share, one for each of its followers in a
    /// presentation's room (`Presentations.roomPlaces(of:)`): each page of a room holds its own.
    let roomPlaces = ClientPlaces("room streams", perClient: .max)
    /// A stream and the place its client holds for it (none for streams opened without one).
    private struct Entry {
        let stream: SharedEventStream
        let place: ClientPlaceHold?
    }

    private let streams = Locked<[String: Entry]>([:])
    /// The process-wide unsent bytes: what waits in a stream's mux counts in them.
    private let unsent: UnsentEventBytes?

    init(unsent: UnsentEventBytes? = nil, perClient: Int = .max) {
        self.unsent = unsent
        places = ClientPlaces("shared event streams", perClient: perClient)
    }

    /// A place for one more stream of `client` (a `ClientAddress.group`): at its share, one of the
    /// `room` its followers in rooms bring; past those, its own stream that has carried no viewer for
    /// longest is closed to make room (a room's pages that have not joined yet are not cut for each
    /// other), else the 429 saying why.
    func hold(for client: String, room: Int = 0) throws(APIError) -> ClientPlaceHold {
        if let place = try? ClientPlaceHold(places, for: client) { return place }
        if room > 0, let place = try? ClientPlaceHold(roomPlaces, for: client) {
            // Taken first, then checked: two at once may both be refused, never both let past `room`.
            if roomPlaces.count(client) <= room { return place }
            place.release()
        }
        _ = makeRoom(of: client)
        return try ClientPlaceHold(places, for: client)
    }

    /// Opens a stream holding `place` (given back when it closes); `cutConnection` closes its connection.
    func open(place: ClientPlaceHold? = nil, cutConnection: @escaping @Sendable () -> Void) -> SharedEventStream {
        let stream = SharedEventStream(maxViewers: Self.maxViewersPerStream, unsent: unsent, cutConnection: cutConnection)
        streams.withLock { $0[stream.id] = Entry(stream: stream, place: place) }
        return stream
    }

    /// The open stream `id`, or why there is none.
    func stream(_ id: String) throws(SharedStreamError) -> SharedEventStream {
        guard let stream = streams.withLock({ $0[id]?.stream }) else { throw .ended(id) }
        return stream
    }

    /// Closes `client`'s stream that has carried no viewer for longest, cutting its connection, and
    /// gives its place back; false when each of its streams carries a viewer.
    ///
    /// Streams are asked outside the lock (lock order).
    private func makeRoom(of client: String) -> Bool {
        let own = streams.withLock { $0.values.filter { $0.place?.client == client } }
        let idle = own.compactMap { entry in entry.stream.idleSince.map { (entry.stream, $0) } }
        guard let oldest = idle.min(by: { $0.1 < $1.1 })?.0 else { return false }
        oldest.cut()
        close(oldest.id)
        return true
    }

    /// Streams open now.
    var count: Int { streams.withLock { $0.count } }

    /// A heartbeat for every stream that carries nobody: its writer writes it (if the stream has been
    /// quiet), so a client that went away is noticed. Streams that carry viewers get theirs from their
    /// viewers' outboxes (`PhotoChannel.tick`). Called every heartbeat interval.
    func heartbeatEmpty() {
        streams.withLock { $0.values.map(\.stream) }
            .filter { $0.idleSince != nil }
            .forEach { $0.mux.post(.heartbeat) }
    }

    /// Stream `id`'s connection ended: it is forgotten and closed, and its place given back.
    func close(_ id: String) {
        guard let entry = streams.withLock({ $0.removeValue(forKey: id) }) else { return }
        entry.stream.close()
        entry.place?.release()
    }

    /// The server is stopping: every stream ends once its viewers' last events are written.
    func finishAll() {
        streams.withLock { $0.values.map(\.stream) }.forEach { $0.finish() }
    }
}
