import Foundation
import Locking
import Synchronization

/// Requests for a photo's sepia thumbnail made while it is still on its way: each waits, bounded, for
/// the photo's next state rather than failing now and coming back after the `filtered` event (one
/// event's way to the page and one round trip after the last byte).
///
/// Woken by the pipeline's `photo` and `partialPreview` events as they are delivered; a wait is
/// resumed exactly once (by the event, its bound or its task's cancellation, whichever comes first),
/// never under the lock.
final class ThumbnailWaits: Sendable {
    private struct Waiter {
        let continuation: CheckedContinuation<Void, Never>
        /// The wait's bound, cancelled when something else ends the wait first.
        var bound: Task<Void, Never>?
    }

    /// The waits by the row they wait for, so a delivery looks only at its own rows' waits.
    private let waiters = Locked<[Int: [UInt64: Waiter]]>([:])
    private let nextID = Atomic<UInt64>(0)
    /// How many wait: a delivery with no one waiting takes no lock.
    private let count = Atomic<Int>(0)

    /// How many requests wait now.
    var waiting: Int { count.load(ordering: .sequentiallyConsistent) }

    /// Waits until photo `index` changes to a state `stillOnItsWay` no longer holds, or `bound` has
    /// passed, or the task is cancelled. `stillOnItsWay` is read after the wait is registered, so a
    /// change that lands between the caller's look and the wait is not missed.
    func wait(for index: Int, upTo bound: Duration, while stillOnItsWay: @Sendable () -> Bool) async {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiters.withLock { $0[index, default: [:]][id] = Waiter(continuation: continuation) }
                count.add(1, ordering: .sequentiallyConsistent)
                guard stillOnItsWay(), !Task.isCancelled else { return resume(id, of: index) }
                let timer = Task {
                    try? await Task.sleep(for: bound)
                    resume(id, of: index)
                }
                // Kept with its wait (unless the wait already ended), to be cancelled when it ends.
                let ended = waiters.withLock { waiters -> Bool in
                    guard waiters[index]?[id] != nil else { return true }
                    waiters[index]?[id]?.bound = timer
                    return false
                }
                if ended { timer.cancel() }
            }
        } onCancel: {
            resume(id, of: index)
        }
    }

    /// The photos whose state `events` changed, or that have a new preview: their waits end.
    func delivered(_ events: [PipelineEvent]) {
        guard count.load(ordering: .sequentiallyConsistent) > 0 else { return }
        var changed = Set<Int>()
        for event in events {
            switch event.kind {
            case .photo(let index, _), .partialPreview(let index, _, _): changed.insert(index)
            case .preview, .operation: break
            }
        }
        guard !changed.isEmpty else { return }
        let woken = waiters.withLock { waiters in
            changed.flatMap { waiters.removeValue(forKey: $0).map { Array($0.values) } ?? [] }
        }
        finish(woken)
    }

    private func resume(_ id: UInt64, of index: Int) {
        let waiter = waiters.withLock { waiters -> Waiter? in
            let waiter = waiters[index]?.removeValue(forKey: id)
            if waiters[index]?.isEmpty == true { waiters[index] = nil }
            return waiter
        }
        finish(waiter.map { [$0] } ?? [])
    }

    private func finish(_ woken: [Waiter]) {
        guard !woken.isEmpty else { return }
        count.subtract(woken.count, ordering: .sequentiallyConsistent)
        for waiter in woken {
            waiter.bound?.cancel()
            waiter.continuation.resume()
        }
    }
}
