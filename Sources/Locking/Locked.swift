#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value that only one thread at a time may read or change: `Synchronization.Mutex`'s interface
/// over a pthread mutex.
///
/// Why not `Mutex` itself: on Linux it waits on a futex that ThreadSanitizer cannot see, so every
/// access it guards is reported as a race (a correct four-thread program gives three reports with
/// Swift 6.3), and `swift test --sanitize=thread` could verify none of our locking. A pthread
/// mutex is one ThreadSanitizer follows, so its reports are real ones.
public final class Locked<Value: ~Copyable>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let storage = UnsafeMutablePointer<Value>.allocate(capacity: 1)

    public init(_ initialValue: consuming sending Value) {
        pthread_mutex_init(mutex, nil)
        storage.initialize(to: initialValue)
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock; as `Mutex.withLock`, `body` must not take
    /// this lock again (a pthread mutex is not recursive).
    public func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&storage.pointee)
    }
}
