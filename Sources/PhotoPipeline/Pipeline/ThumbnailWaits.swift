import Foundation
import Locking
import Synchronization

/// Requests for a photo's sepia thumbnail made while it is still on its way: each waits, bounded, for
/// the photo's next state rather than failing now and coming back after the `filtered` event (one
/// event's way to the page and one round trip after the last byte).
///
/// Woken by the pipeline's `photo` events as they are delivered; a wait is resumed exactly once (by
/// the event, its bound or its task's cancellation, whichever comes first), never under the lock.
final class ThumbnailWaits: Sendable {
    private struct Waiter {
        let index: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private let waiters = Locked<[UInt64: Waiter]>([:])
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
                waiters.withLock { $0[id] = Waiter(index: index, continuation: continuation) }
                count.add(1, ordering: .sequentiallyConsistent)
                guard stillOnItsWay(), !Task.isCancelled else { return resume(id) }
                Task {
                    try? await Task.sleep(for: bound)
                    resume(id)
                }
            }
        } onCancel: {
            resume(id)
        }
    }

    /// The photos whose state `events` changed: their waits end.
    func delivered(_ events: [PipelineEvent]) {
        guard count.load(ordering: .sequentiallyConsistent) > 0 else { return }
        var changed = Set<Int>()
        for event in events {
            if case .photo(let index, _) = event.kind { changed.insert(index) }
        }
        guard !changed.isEmpty else { return }
        let woken = waiters.withLock { waiters in
            let ids = waiters.filter { changed.contains($0.value.index) }.map(\.key)
            return ids.compactMap { waiters.removeValue(forKey: $0) }
        }
        finish(woken)
    }

    private func resume(_ id: UInt64) {
        finish(waiters.withLock { $0.removeValue(forKey: id) }.map { [$0] } ?? [])
    }

    private func finish(_ woken: [Waiter]) {
        guard !woken.isEmpty else { return }
        count.subtract(woken.count, ordering: .sequentiallyConsistent)
        woken.forEach { $0.continuation.resume() }
    }
}
