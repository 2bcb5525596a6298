public import Foundation

/// Where finished results (originals, sepia thumbnails, previews, full-size sepia images) are kept
/// beyond memory, by name. In one process: `DiskCache`, a folder. Several instances share one:
/// PhotoCluster's `PostgresResultStore`, a table every instance reads.
///
/// The pipeline calls it only with its own lock released: reads on a Dispatch or filtration thread,
/// writes right after the decision to keep something.
public protocol ResultStoring: Sendable {
    /// Whether a result named `name` is held, as far as this runner knows (cheap).
    func contains(_ name: String) -> Bool
    /// Whether a result named `name` is held, asking the store itself: another runner may have kept
    /// it since. May block on I/O; never under a lock.
    func isHeld(_ name: String) -> Bool
    /// The bytes of `name`, or nil when they are not held (any more). May block on I/O.
    func read(_ name: String) -> Data?
    /// Keeps `data` as `name`; returns the names no longer held because of it (evicted past the
    /// budget, or `name` itself when it cannot be kept).
    @discardableResult
    func write(_ data: Data, for name: String) -> [String]
    /// Waits until every write is kept (shutdown).
    func flush()
    /// Forgets every result (a cold start), including those of writes handed over before; returns once
    /// they are gone. May block on I/O; never under a lock.
    func removeAll()
    /// Calls `handler` with names that turn out not to be held after all (a write that failed later,
    /// a file found damaged); never under the store's lock.
    func whenLost(_ handler: @escaping @Sendable ([String]) -> Void)
    /// Why results cannot be kept now (a full or read-only disk), nil while they can.
    var writeProblem: String? { get }
}

extension ResultStoring {
    public func isHeld(_ name: String) -> Bool { contains(name) }
    /// A store whose writes are settled when `write` returns never loses a name later.
    public func whenLost(_ handler: @escaping @Sendable ([String]) -> Void) {}
    public var writeProblem: String? { nil }
    /// A store shared with other instances keeps what they made: the pipeline never starts cold on
    /// shared work (`PhotoPipeline.canStartCold`), so it never asks one.
    public func removeAll() {}
}

extension DiskCache: ResultStoring {}
