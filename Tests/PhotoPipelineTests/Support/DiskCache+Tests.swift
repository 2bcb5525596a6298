import Foundation
@testable import PhotoPipeline
import TestOrigin

/// The disk cache's blocking calls, made from a test off Swift concurrency's pool: opening a cache
/// writes and `fsync`s a probe, and `flush` waits for queued `fsync`s, which take seconds on a disk
/// busy with a build, and the pool has two threads for every test in the process.
extension DiskCache {
    static func opening(
        _ directory: URL, budget: Int, report: @escaping @Sendable (DiskCacheEvent) -> Void = { _ in }
    ) async -> DiskCache {
        await offThePool { DiskCache(directory: directory, budget: budget, report: report) }
    }

    /// Waits, off the pool, until every queued write is on disk.
    func flushed() async {
        await offThePool { self.flush() }
    }
}
