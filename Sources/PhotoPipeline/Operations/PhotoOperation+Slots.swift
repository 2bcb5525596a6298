import Dispatch
import Foundation
import Locking
import Synchronization

/// Taking a slot of the process-wide bounds (`SharedBounds`) before the work, and giving it back after.
extension PhotoOperation {
    /// Calls `proceed(true)` once a slot is held (at once without shared bounds), or `proceed(false)`
    /// when the operation is cancelled while it waits. `proceed` runs on this thread or on the one
    /// that freed the slot.
    func takeSlot(then proceed: @escaping @Sendable (Bool) -> Void) {
        guard let bounds else { return proceed(true) }
        let slots = bounds.slots(for: queue)
        let acquisition = slots.acquire(bounds.holder, owner: bounds.owner) { [self] granted in
            if granted { slotHeld.store(true, ordering: .releasing) }
            proceed(granted)
        }
        switch acquisition {
        case .granted:
            slotHeld.store(true, ordering: .releasing)
            proceed(true)
        case .waiting(let ticket):
            slotWait.withLock { $0 = ticket }
            // A cancel that landed before the ticket was kept had nothing to withdraw.
            if isCancelled { slots.withdraw(ticket) }
        }
    }

    /// Waits on this (queue) thread for a slot; false when cancelled while waiting.
    func waitForSlot() -> Bool {
        guard bounds != nil else { return true }
        let decided = DispatchSemaphore(value: 0)
        let outcome = SlotOutcome()
        takeSlot { granted in
            outcome.granted = granted
            decided.signal()
        }
        decided.wait()
        return outcome.granted
    }

    /// Gives the slot back, if one is held; idempotent.
    func releaseSlot() {
        guard let bounds, slotHeld.exchange(false, ordering: .acquiringAndReleasing) else { return }
        bounds.slots(for: queue).release(bounds.holder, owner: bounds.owner)
    }

    /// Withdraws a wait for a slot (the operation was cancelled).
    func withdrawSlotWait() {
        guard let bounds, let ticket = slotWait.withLock({ $0 }) else { return }
        bounds.slots(for: queue).withdraw(ticket)
    }
}

/// A wait's outcome, written before the semaphore is signalled and read after it is waited on.
private final class SlotOutcome: @unchecked Sendable {
    var granted = false
}
