import PhotoPipeline
import Locking
import Testing

@Suite("WorkSlots: the bounds the list and lab lanes share")
struct WorkSlotsTests {
    /// Records the decisions a wait was told of.
    final class Decisions: Sendable {
        private let values = Locked<[Bool]>([])
        func record(_ value: Bool) { values.withLock { $0.append(value) } }
        var all: [Bool] { values.withLock { $0 } }
    }

    @Test func guestsNeverTakeTheHostsReserve() {
        // Given 4 slots, 2 of them reserved for the host
        let slots = WorkSlots(capacity: 4, reservedForHost: 2)
        let decisions = Decisions()
        // When guests ask for 3
        let guests = (0..<3).map { _ in slots.acquire(.guest, whenDecided: decisions.record) }
        // Then 2 are granted and the third waits, while the host still gets both of its own at once
        #expect(guests.prefix(2).allSatisfy { $0 == .granted })
        guard case .waiting = guests[2] else { Issue.record("the third guest should wait"); return }
        #expect(slots.acquire(.host, whenDecided: decisions.record) == .granted)
        #expect(slots.acquire(.host, whenDecided: decisions.record) == .granted)
        #expect(slots.usage.held == 4 && slots.usage.byGuests == 2)
        #expect(decisions.all.isEmpty)
    }

    @Test func aFreedSlotGoesToTheHostFirstThenToGuestsInOrder() {
        // Given every slot held, a guest waiting, then a host waiting
        let slots = WorkSlots(capacity: 2, reservedForHost: 1)
        #expect(slots.acquire(.guest) { _ in } == .granted)
        #expect(slots.acquire(.host) { _ in } == .granted)
        let guest = Decisions(), host = Decisions()
        _ = slots.acquire(.guest, whenDecided: guest.record)
        _ = slots.acquire(.host, whenDecided: host.record)
        // When the host frees its slot, the waiting host gets it though the guest came first
        slots.release(.host)
        #expect(host.all == [true] && guest.all.isEmpty)
        // When the guest frees its slot, the waiting guest gets it
        slots.release(.guest)
        #expect(guest.all == [true])
        #expect(slots.usage.held == 2 && slots.usage.byGuests == 1)
    }

    @Test func guestsShareTheirSlotsFairlyBetweenOwners() {
        // Given the two guest slots held by owner 1, which has two more waiting, then owner 2 waiting
        let slots = WorkSlots(capacity: 3, reservedForHost: 1)
        #expect(slots.acquire(.guest, owner: 1) { _ in } == .granted)
        #expect(slots.acquire(.guest, owner: 1) { _ in } == .granted)
        let first = Decisions(), other = Decisions()
        _ = slots.acquire(.guest, owner: 1, whenDecided: first.record)
        _ = slots.acquire(.guest, owner: 1, whenDecided: first.record)
        _ = slots.acquire(.guest, owner: 2, whenDecided: other.record)
        // When owner 1 frees a slot, owner 2 (holding none) gets it though it asked last
        slots.release(.guest, owner: 1)
        #expect(other.all == [true] && first.all.isEmpty)
        // And when owner 1 frees another, its own first waiter gets it
        slots.release(.guest, owner: 1)
        #expect(first.all == [true])
    }

    @Test func aWithdrawnWaitIsToldAndNeverGranted() {
        // Given a guest waiting for the only guest slot
        let slots = WorkSlots(capacity: 2, reservedForHost: 1)
        #expect(slots.acquire(.guest) { _ in } == .granted)
        let decisions = Decisions()
        guard case .waiting(let ticket) = slots.acquire(.guest, whenDecided: decisions.record) else {
            Issue.record("the second guest should wait"); return
        }
        // When it is withdrawn (its operation was cancelled), then the slot is freed
        slots.withdraw(ticket)
        slots.release(.guest)
        // Then it heard false once, and nothing is held
        #expect(decisions.all == [false])
        #expect(slots.usage.held == 0)
    }
}
