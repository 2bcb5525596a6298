import Synchronization

/// Who runs a photo's work: the single flight that makes one download and one filtration of a photo
/// at a time, however many viewers (or instances) want it.
///
/// Called by an operation on its own thread as it starts and as it ends, never under the pipeline's
/// lock. In one process `LocalWorkClaims` grants every claim the pending-operations table lets
/// through; several instances would claim in PostgreSQL (an advisory lock per photo) so that one of
/// them works on it and the others wait for its result.
public protocol WorkClaiming: Sendable {
    /// Takes the right to run the work named `key`; false while another runner holds it.
    func claim(_ key: String) -> Bool
    /// Gives back the right to run `key`: the work ended, whatever its outcome.
    func release(_ key: String)
}

/// The claims of one process: a set of the work running now.
public final class LocalWorkClaims: WorkClaiming {
    private let running = Mutex<Set<String>>([])

    /// No work claimed yet.
    public init() {}

    public func claim(_ key: String) -> Bool {
        running.withLock { $0.insert(key).inserted }
    }

    public func release(_ key: String) {
        _ = running.withLock { $0.remove(key) }
    }
}
