import Locking

/// A bound that several pipelines share on how much of one kind of work runs at once (transfers,
/// or filtrations on the cores), with a part of it that guests may never take: the server's own list
/// (the host) always finds a permit within its reserve, however many lab lanes (guests) are busy.
/// Guests share theirs fairly: a freed permit goes to the waiting guest whose owner (a lane's
/// pipeline) holds the fewest, so one lane's backlog never queues another lane's work behind it.
///
/// A waiter is called back when a permit is given back (on the thread that freed it, never under this
/// lock), so a download waiting for a permit holds no thread. Any thread.
public final class WorkPermits: Sendable {
    /// Who asks for a permit.
    public enum Holder: Sendable {
        /// The server's own list: any free permit, and first in line.
        case host
        /// A lab lane: only the permits outside the host's reserve.
        case guest
    }

    /// A wait that has not been granted yet.
    public struct Ticket: Sendable, Equatable {
        let id: UInt64
    }

    /// What `acquire` found.
    public enum Acquisition: Sendable, Equatable {
        /// A permit is held now; the callback is not called.
        case granted
        /// The callback will be called: `true` when a permit is held, `false` when the wait was withdrawn.
        case waiting(Ticket)
    }

    /// Permits in all.
    public let capacity: Int
    /// Permits guests may hold at once: the capacity less the host's reserve.
    public let guestCapacity: Int

    private struct Waiter {
        let ticket: Ticket
        let holder: Holder
        let owner: Int
        let resume: @Sendable (Bool) -> Void
    }

    private struct State {
        var held = 0
        var heldByGuests = 0
        var heldByOwner: [Int: Int] = [:]
        var waiting: [Waiter] = []
        var lastID: UInt64 = 0

        func canGrant(_ holder: Holder, guestCapacity: Int, capacity: Int) -> Bool {
            held < capacity && (holder == .host || heldByGuests < guestCapacity)
        }

        mutating func take(_ holder: Holder, owner: Int) {
            held += 1
            if holder == .guest { heldByGuests += 1 }
            heldByOwner[owner, default: 0] += 1
        }

        /// The next waiter to grant: the first host, else the guest whose owner holds the fewest (the first of equals).
        func next() -> Int? {
            if let host = waiting.firstIndex(where: { $0.holder == .host }) { return host }
            return waiting.indices.min { heldByOwner[waiting[$0].owner, default: 0] < heldByOwner[waiting[$1].owner, default: 0] }
        }
    }

    /// Lock order: a leaf; callbacks run after it is released.
    private let state = Locked(State())

    /// `capacity` permits (at least 1), of which `reservedForHost` (at least 1, at most all) guests never hold.
    public init(capacity: Int, reservedForHost: Int) {
        self.capacity = max(1, capacity)
        guestCapacity = max(0, self.capacity - min(self.capacity, max(1, reservedForHost)))
    }

    /// Takes a permit for `holder` (on behalf of `owner`) now, or queues the request (hosts ahead of
    /// guests) and calls `whenDecided` once it is granted or withdrawn.
    public func acquire(_ holder: Holder, owner: Int = 0, whenDecided: @escaping @Sendable (Bool) -> Void) -> Acquisition {
        state.withLock { state in
            // Nobody who comes first is in line: a host waits only behind hosts, a guest behind anyone.
            let inLine = state.waiting.contains { $0.holder == .host || holder == .guest }
            if !inLine, state.canGrant(holder, guestCapacity: guestCapacity, capacity: capacity) {
                state.take(holder, owner: owner)
                return .granted
            }
            state.lastID += 1
            let ticket = Ticket(id: state.lastID)
            state.waiting.append(Waiter(ticket: ticket, holder: holder, owner: owner, resume: whenDecided))
            return .waiting(ticket)
        }
    }

    /// Gives up a wait; its callback is called with `false` (on this thread) unless it was granted already.
    public func withdraw(_ ticket: Ticket) {
        let withdrawn = state.withLock { state in
            state.waiting.firstIndex { $0.ticket == ticket }.map { state.waiting.remove(at: $0) }
        }
        withdrawn?.resume(false)
        // A guest at the head of the line may have kept hosts or guests behind it waiting for nothing.
        grantWaiters()
    }

    /// Frees a permit `holder` held for `owner`, and grants it to the next waiter that may take it.
    public func release(_ holder: Holder, owner: Int = 0) {
        state.withLock { state in
            state.held = max(0, state.held - 1)
            if holder == .guest { state.heldByGuests = max(0, state.heldByGuests - 1) }
            let left = max(0, state.heldByOwner[owner, default: 0] - 1)
            state.heldByOwner[owner] = left == 0 ? nil : left
        }
        grantWaiters()
    }

    /// Requests waiting for a permit now.
    public var waiting: Int {
        state.withLock { $0.waiting.count }
    }

    /// Permits held now, and of those by guests.
    public var usage: (held: Int, byGuests: Int) {
        state.withLock { ($0.held, $0.heldByGuests) }
    }

    /// Grants free permits to waiters: hosts first in arrival order, then guests within their share,
    /// fairly between owners.
    private func grantWaiters() {
        let granted: [Waiter] = state.withLock { state in
            var granted: [Waiter] = []
            while let position = state.next(),
                  state.canGrant(state.waiting[position].holder, guestCapacity: guestCapacity, capacity: capacity) {
                let waiter = state.waiting.remove(at: position)
                state.take(waiter.holder, owner: waiter.owner)
                granted.append(waiter)
            }
            return granted
        }
        granted.forEach { $0.resume(true) }
    }
}
