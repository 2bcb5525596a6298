import Foundation
import Locking

/// Chunks a reading thread receives, awaited by a test with a deadline.
///
/// An `AsyncStream` iterator waits for its next element without a bound; this one gives up at the
/// deadline, so a wait with no chunk coming ends as a failure instead of a hung test.
final class ChunkInbox: Sendable {
    enum Take: Sendable {
        case chunk([UInt8])
        case ended
        case timedOut
    }

    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Take, Never>
    }

    private struct State {
        var chunks: [[UInt8]] = []
        var isEnded = false
        var waiter: Waiter?
        var lastWaiterID = 0
    }

    private let state = Locked(State())

    /// From the reading thread: a chunk arrived.
    func put(_ chunk: [UInt8]) {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiter else {
                state.chunks.append(chunk)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.continuation.resume(returning: .chunk(chunk))
    }

    /// From the reading thread: the connection ended; no more chunks.
    func finish() {
        let waiter = state.withLock { state -> Waiter? in
            state.isEnded = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.continuation.resume(returning: .ended)
    }

    /// The next chunk, `.ended`, or `.timedOut` once `deadline` has passed; one taker at a time.
    func take(before deadline: ContinuousClock.Instant) async -> Take {
        let id = state.withLock { state -> Int in
            state.lastWaiterID += 1
            return state.lastWaiterID
        }
        let timer = Task { [self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            expire(id)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Take? in
                if !state.chunks.isEmpty { return .chunk(state.chunks.removeFirst()) }
                if state.isEnded { return .ended }
                // Checked under the lock: a timer that fired before this registration finds no waiter.
                if ContinuousClock.now >= deadline { return .timedOut }
                state.waiter = Waiter(id: id, continuation: continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func expire(_ id: Int) {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiter, waiter.id == id else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.continuation.resume(returning: .timedOut)
    }
}
