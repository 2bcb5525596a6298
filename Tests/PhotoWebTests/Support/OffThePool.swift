import Foundation

/// Runs blocking `work` (a socket call, a child process) on a thread of its own and awaits it. A
/// blocking call on one of Swift concurrency's threads (two on a two-core machine) stalls every test
/// in the process until it returns, which is how one test's slow `connect` became another's timeout.
func offThePool<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
    let result: Result<T, E> = await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(returning: Result { () throws(E) -> T in try work() })
        }
    }
    return try result.get()
}
