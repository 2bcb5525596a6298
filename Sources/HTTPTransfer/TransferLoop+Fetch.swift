public import Foundation
import Locking

extension TransferLoop {
    /// Fetches `url` and returns its body, suspending (not blocking) the caller; cancelling the calling
    /// task cancels the transfer.
    public func fetch(_ url: String, limits: TransferLimits = .init()) async throws(TransferError) -> Data {
        let cancellation = FetchCancellation()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                cancellation.attach(start(url, limits: limits) { continuation.resume(returning: $0) })
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try result.get()
    }
}

/// Lets `fetch` cancel a transfer whose handle may not exist yet when the task is cancelled.
private final class FetchCancellation: Sendable {
    private let state = Locked<(handle: TransferHandle?, isCancelled: Bool)>((nil, false))

    /// Records the transfer's handle, cancelling it at once if the task was cancelled first.
    func attach(_ handle: TransferHandle) {
        let isCancelled = state.withLock { state in
            state.handle = handle
            return state.isCancelled
        }
        if isCancelled { handle.cancel() }
    }

    /// Cancels the transfer now, or as soon as its handle is attached.
    func cancel() {
        state.withLock { state in
            state.isCancelled = true
            return state.handle
        }?.cancel()
    }
}
