import PhotoPipeline
import Locking
import Testing

@Suite("WorkPermits: the bounds the list and lab lanes share")
struct WorkPermitsTests {
    /// Records the decisions a wait was told of.
    final class Decisions: Sendable {
        private let values = Locked<[Bool]>([])
        func record(_ value: Bool) { values.withLock { $0.append(value) } }
        var all: [Bool] { values.withLock { $0 } }
    }

    @Test func guestsNeverTakeTheHostsReserve() {
        // Given 4 permits, 2 of them reserved for the host
        let permits = WorkPermits(capacity: 4, reservedForHost: 2)
        let decisions = Decisions()
        // When guests ask for 3
        let guests = (0..<3).map { _ in permits.acquire(.guest, whenDecided: decisions.record) }
        // Then 2 are granted and the third waits, while the host still gets both of its own at once
        #expect(guests.prefix(2).allSatisfy { $0 == .granted })
        guard case .waiting = guests[2] else { Issue.record("the third guest should wait"); return }
        #expect(permits.acquire(.host, whenDecided: decisions.record) == .granted)
        #expect(permits.acquire(.host, whenDecided: decisions.record) == .granted)
        #expect(permits.usage.held == 4 && permits.usage.byGuests == 2)
        #expect(decisions.all.isEmpty)
    }

    @Test func aFreedPermitGoesToTheHostFirstThenToGuestsInOrder() {
        // Given every permit held, a guest waiting, then a host waiting
        let permits = WorkPermits(capacity: 2, reservedForHost: 1)
        #expect(permits.acquire(.guest) { _ in } == .granted)
        #expect(permits.acquire(.host) { _ in } == .granted)
        let guest = Decisions(), host = Decisions()
        _ = permits.acquire(.guest, whenDecided: guest.record)
        _ = permits.acquire(.host, whenDecided: host.record)
        // When the host frees its permit, the waiting host gets it though the guest came first
        permits.release(.host)
        #expect(host.all == [true] && guest.all.isEmpty)
        // When the guest frees its permit, the waiting guest gets it
        permits.release(.guest)
        #expect(guest.all == [true])
        #expect(permits.usage.held == 2 && permits.usage.byGuests == 1)
    }

    @Test func guestsShareTheirPermitsFairlyBetweenOwners() {
        // Given the two guest permits held by owner 1, which has two more waiting, then owner 2 waiting
        let permits = WorkPermits(capacity: 3, reservedForHost: 1)
        #expect(permits.acquire(.guest, owner: 1) { _ in } == .granted)
        #expect(permits.acquire(.guest, owner: 1) { _ in } == .granted)
        let first = Decisions(), other = Decisions()
        _ = permits.acquire(.guest, owner: 1, whenDecided: first.record)
        _ = permits.acquire(.guest, owner: 1, whenDecided: first.record)
        _ = permits.acquire(.guest, owner: 2, whenDecided: other.record)
        // When owner 1 frees a permit, owner 2 (holding none) gets it though it asked last
        permits.release(.guest, owner: 1)
        #expect(other.all == [true] && first.all.isEmpty)
        // And when owner 1 frees another, its own first waiter gets it
        permits.release(.guest, owner: 1)
        #expect(first.all == [true])
    }

    @Test func aWithdrawnWaitIsToldAndNeverGranted() {
        // Given a guest waiting for the only guest permit
        let permits = WorkPermits(capacity: 2, reservedForHost: 1)
        #expect(permits.acquire(.guest) { _ in } == .granted)
        let decisions = Decisions()
        guard case .waiting(let ticket) = permits.acquire(.guest, whenDecided: decisions.record) else {
            Issue.record("the second guest should wait"); return
        }
        // When it is withdrawn (its operation was cancelled), then the permit is freed
        permits.withdraw(ticket)
        permits.release(.guest)
        // Then it heard false once, and nothing is held
        #expect(decisions.all == [false])
        #expect(permits.usage.held == 0)
    }
}
