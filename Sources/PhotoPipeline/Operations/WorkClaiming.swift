import Dispatch
import Locking

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
    /// Whether other runners (instances) claim too: a failed claim then means another one works on
    /// it, and work this runner holds may be wanted by viewers elsewhere.
    var isShared: Bool { get }
    /// Calls `then`, on any thread, once `key` is free again (its holder ended its work or died);
    /// asked of shared claims after `claim(key)` failed.
    func whenReleased(_ key: String, then: @escaping @Sendable () -> Void)
    /// Answers, on any thread, whether a runner elsewhere waits for the work named `key`, which this
    /// runner holds: then it goes on though no viewer here wants it any more.
    func isWantedElsewhere(_ key: String, reply: @escaping @Sendable (Bool) -> Void)
}

/// Claims of one process: not shared, and nobody elsewhere to wait for or to want work.
extension WorkClaiming {
    public var isShared: Bool { false }

    public func whenReleased(_ key: String, then: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async(execute: then)
    }

    public func isWantedElsewhere(_ key: String, reply: @escaping @Sendable (Bool) -> Void) {
        reply(false)
    }
}

/// The claims of one process: a set of the work running now.
public final class LocalWorkClaims: WorkClaiming {
    private let running = Locked<Set<String>>([])

    /// No work claimed yet.
    public init() {}

    public func claim(_ key: String) -> Bool {
        running.withLock { $0.insert(key).inserted }
    }

    public func release(_ key: String) {
        _ = running.withLock { $0.remove(key) }
    }
}
