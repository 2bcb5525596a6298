import Synchronization

/// The lab browser lane's photos being sent now (`GET /lab/images/...`), across all clients. Each one
/// holds a photo's bytes while it trickles out at its simulated bandwidth (as slowly as 1,000 bytes
/// a second), so their number is bounded: past `limit` a new one is refused (`503` with the reason)
/// rather than many slow transfers adding up to the process's memory.
final class LabImageTransfers: Sendable {
    /// Transfers at once.
    let limit: Int
    private let running = Atomic(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Transfers running now.
    var count: Int { running.load(ordering: .relaxed) }

    /// A place for one more transfer, given back when the returned lease is released (when the
    /// response that holds it is gone, however it ended); nil when `limit` run already.
    func lease() -> Lease? {
        let (taken, _) = running.wrappingAdd(1, ordering: .acquiringAndReleasing)
        guard taken < limit else {
            running.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            return nil
        }
        return Lease(transfers: self)
    }

    /// One transfer's place; freed when this is deallocated (the response body that holds it ended,
    /// failed or was never written).
    final class Lease: Sendable {
        private let transfers: LabImageTransfers

        fileprivate init(transfers: LabImageTransfers) {
            self.transfers = transfers
        }

        deinit {
            transfers.running.wrappingSubtract(1, ordering: .acquiringAndReleasing)
        }
    }
}
