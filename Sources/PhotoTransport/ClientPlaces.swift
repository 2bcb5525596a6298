import Locking

/// Places of one kind (viewers, labs, shared event streams) held per client, so that one client
/// cannot hold them all: each holds at most `perClient`, its fair share of the server's total.
/// Clients are counted by `ClientAddress.group` (an IPv6 /64 is one client). A client that holds
/// none is forgotten, so memory follows the clients holding places now.
///
/// Lock order: a leaf.
package final class ClientPlaces: Sendable {
    /// What the places are, for messages ("viewers", "labs").
    package let kind: String
    /// Places one client holds at most.
    package let perClient: Int
    private let held = Locked<[String: Int]>([:])

    package init(_ kind: String, perClient: Int) {
        self.kind = kind
        self.perClient = max(1, perClient)
    }

    /// A client's fair share of `total` places: a quarter, so that at least four clients share
    /// them, and at least `floor`.
    package static func fairShare(of total: Int, floor: Int = 1) -> Int {
        max(floor, total / 4)
    }

    /// Takes a place for `client` (already grouped); false when it holds its share.
    package func take(_ client: String) -> Bool {
        held.withLock { held in
            let count = held[client, default: 0]
            guard count < perClient else { return false }
            held[client] = count + 1
            return true
        }
    }

    /// Gives back a place `take` gave `client`.
    package func give(_ client: String) {
        held.withLock { held in
            guard let count = held[client] else { return }
            held[client] = count > 1 ? count - 1 : nil
        }
    }

    /// The places `client` holds now.
    package func count(_ client: String) -> Int {
        held.withLock { $0[client, default: 0] }
    }
}
