import Dispatch
import Foundation
import Locking
import Synchronization

/// Taking a permit of the process-wide bounds (`SharedBounds`) before the work, and giving it back after.
extension PhotoOperation {
    /// Calls `proceed(true)` once a permit is held (at once without shared bounds), or `proceed(false)`
    /// when the operation is cancelled while it waits. `proceed` runs on this thread or on the one
    /// that freed the permit.
    func takePermit(then proceed: @escaping @Sendable (Bool) -> Void) {
        guard let bounds else { return proceed(true) }
        let permits = bounds.permits(for: queue)
        let acquisition = permits.acquire(bounds.holder, owner: bounds.owner) { [self] granted in
            if granted { permitHeld.store(true, ordering: .releasing) }
            proceed(granted)
        }
        switch acquisition {
        case .granted:
            permitHeld.store(true, ordering: .releasing)
            proceed(true)
        case .waiting(let ticket):
            permitWait.withLock { $0 = ticket }
            // A cancel that landed before the ticket was kept had nothing to withdraw.
            if isCancelled { permits.withdraw(ticket) }
        }
    }

    /// Waits on this (queue) thread for a permit; false when cancelled while waiting.
    func waitForPermit() -> Bool {
        guard bounds != nil else { return true }
        let decided = DispatchSemaphore(value: 0)
        let outcome = PermitOutcome()
        takePermit { granted in
            outcome.granted = granted
            decided.signal()
        }
        decided.wait()
        return outcome.granted
    }

    /// Gives the permit back, if one is held; idempotent.
    func releasePermit() {
        guard let bounds, permitHeld.exchange(false, ordering: .acquiringAndReleasing) else { return }
        bounds.permits(for: queue).release(bounds.holder, owner: bounds.owner)
    }

    /// Withdraws a wait for a permit (the operation was cancelled).
    func withdrawPermitWait() {
        guard let bounds, let ticket = permitWait.withLock({ $0 }) else { return }
        bounds.permits(for: queue).withdraw(ticket)
    }
}

/// A wait's outcome, written before the semaphore is signalled and read after it is waited on.
private final class PermitOutcome: @unchecked Sendable {
    var granted = false
}
