import Locking
import PhotoPipeline

/// A presentation's room (issue 57): its follow link admits its first `Settings.roomSize` followers
/// (while they live) without a new viewer's token of their address, so a room behind one address
/// (one NAT) all get the page; past it a follow link is a new viewer like any other
/// (`--viewers-per-minute`). A room's followers also bring their address the shared streams and
/// connections their pages hold (`roomPlaces(of:)`).
extension Presentations {
    /// Connections each follower in a room brings its address beyond `--connections-per-client`: a
    /// browser's six to a host over HTTP/1.1 (its event stream among them), with room for those it
    /// closes and opens again as its modules and thumbnails load. With three, twenty browsers opening
    /// the link behind one address had their modules refused (429) and pages left blank.
    static let roomConnections = 12

    /// Whether `code` runs with a place free in its room; a 404 with the reason when it does not run.
    func roomIsOpen(_ code: FollowCode) throws(APIError) -> Bool {
        let outcome = state.withLock { state -> Result<Bool, APIError> in
            guard let presentation = state.codes[code] else {
                return .failure(state.codes.gone(code))
            }
            return .success(presentation.room.count < settings.roomSize)
        }
        return try outcome.get()
    }

    /// The followers `client` (a `ClientAddress.group`) has in rooms now (each was admitted to one
    /// room, as a new viewer). Asked for each connection past `--connections-per-client`: a count kept.
    func roomPlaces(of client: String) -> Int {
        state.withLock { $0.roomPlaces[client, default: 0] }
    }

    /// Counts `members` in their clients' room places (under the lock).
    static func entered(_ members: some Sequence<ViewerSession>, in state: inout State) {
        for member in members { if let client = member.client { state.roomPlaces[client, default: 0] += 1 } }
    }

    /// Takes `members` out of their clients' room places (under the lock).
    static func left(_ members: some Sequence<ViewerSession>, in state: inout State) {
        for member in members {
            guard let client = member.client, let count = state.roomPlaces[client] else { continue }
            state.roomPlaces[client] = count > 1 ? count - 1 : nil
        }
    }

    /// Records the followers of `code` whose stream is open; its presenter's news when the count changed.
    func counted(_ receiving: Set<ViewerID>, for code: FollowCode) -> PresentationNews? {
        state.withLock { state in
            guard var presentation = state.codes[code] else { return nil }
            // Only those that still follow: one that broke away meanwhile is not counted again.
            let now = receiving.filter { presentation.followers[$0] != nil }
            guard now != presentation.receiving else { return nil }
            let changed = now.count != presentation.receiving.count
            presentation.receiving = now
            state.codes[code] = presentation
            return changed ? Self.presenterNews(presentation) : nil
        }
    }

    /// The refusal of a follow link past a full room whose address made too many new viewers lately.
    static func roomFull(_ size: Int, client: String? = nil, retryAfter seconds: Int = 30) -> APIError {
        .tooManyRequests(
            "this presentation's room is full (its \(size) followers, --room-size)"
                + (client.map { ", and \($0) made its most new viewers lately (--viewers-per-minute)" } ?? "")
                + ": try again in \(seconds) s",
            retryAfter: seconds)
    }
}
