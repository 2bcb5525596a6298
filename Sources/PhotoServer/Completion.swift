import Locking

/// Something that happens once (the list loaded, a server listens on a port): `wait()` returns its
/// value once `complete(_:)` was called; later calls to `complete` change nothing.
final class Completion<Value: Sendable>: Sendable {
    private let state = Locked<(value: Value?, waiting: [CheckedContinuation<Value, Never>])>((nil, []))

    /// Sets the value, the first time, and wakes every waiter.
    func complete(_ value: Value) {
        let waiting = state.withLock { state in
            guard state.value == nil else { return [CheckedContinuation<Value, Never>]() }
            defer { state = (value, []) }
            return state.waiting
        }
        // Resumed after the lock: a waiter runs code of its own.
        waiting.forEach { $0.resume(returning: value) }
    }

    /// The value, once `complete(_:)` has been called.
    func wait() async -> Value {
        await withCheckedContinuation { continuation in
            let value = state.withLock { state in
                if state.value == nil { state.waiting.append(continuation) }
                return state.value
            }
            if let value { continuation.resume(returning: value) }
        }
    }
}

extension Completion where Value == Void {
    /// Marks it done.
    func complete() { complete(()) }
}

extension Completion {
    /// Whether `complete(_:)` has been called.
    var isComplete: Bool { state.withLock { $0.value != nil } }
}
