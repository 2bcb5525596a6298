import Foundation

/// Runs blocking or CPU-heavy `work` (a socket call, a child process, a photo-sized image made in a
/// debug build) on a thread of its own and awaits it. Such work on one of Swift concurrency's threads
/// (two on a two-core machine, where swift-testing runs every test body) stalls every test in the
/// process until it returns: how one test's slow `connect` became another's timeout, and how making
/// one 1600x1067 sample photo under a CPU hog held the pool for 24 s.
public func offThePool<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
    let result: Result<T, E> = await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(returning: Result { () throws(E) -> T in try work() })
        }
    }
    return try result.get()
}
