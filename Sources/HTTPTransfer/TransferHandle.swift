import Foundation

/// Cancels one transfer started by `TransferLoop.start`; may be used from any thread.
public final class TransferHandle: Sendable {
    private let loop: TransferLoop
    private let id: UInt64

    init(loop: TransferLoop, id: UInt64) {
        self.loop = loop
        self.id = id
    }

    /// Aborts the transfer at once: the loop drops it from the multi handle, closing its connection,
    /// and its completion gets `.cancelled` on the loop thread. Idempotent; a no-op once it has completed.
    public func cancel() {
        loop.cancel(id)
    }
}
