import Locking

/// How many rows each client's window showed at its last stop, so that its next page load starts work
/// for the rows that window really shows (`AppContext.startFirstScreen`), not a fixed guess: a
/// 1366x768 laptop under the introduction shows 6, a tall monitor many more. A client not known yet
/// gets `FirstScreen.surelyShownRows` at the load, and its first report decides the rest.
///
/// Keyed by `ClientAddress.group`, at most `capacity` clients (the oldest entry goes first).
final class FirstScreenSizes: Sendable {
    private struct State {
        var rows: [String: Int] = [:]
        /// Clients in the order they were last told about, oldest first.
        var order: [String] = []
    }

    /// Lock order: a leaf.
    private let state = Locked(State())
    let capacity: Int

    init(capacity: Int = 4_096) {
        self.capacity = max(1, capacity)
    }

    /// `client`'s window showed `rows` rows at a stop.
    func remember(_ rows: Int, for client: String?) {
        guard let client, rows > 0 else { return }
        state.withLock { state in
            if state.rows.updateValue(rows, forKey: client) != nil {
                state.order.removeAll { $0 == client }
            } else if state.order.count >= capacity {
                state.rows[state.order.removeFirst()] = nil
            }
            state.order.append(client)
        }
    }

    /// The rows `client`'s window showed at its last stop, if known.
    func rows(for client: String?) -> Int? {
        guard let client else { return nil }
        return state.withLock { $0.rows[client] }
    }
}
