/// Something the pipeline did, in the order it happened; the web layer fans these out to viewers.
public struct PipelineEvent: Sendable {
    /// Increases by one per event, across all photos and queues.
    public var sequence: UInt64
    /// Seconds since the pipeline started, for timelines.
    public var time: Double
    /// What happened.
    public var kind: Kind

    /// The kinds of event.
    public enum Kind: Sendable {
        /// A record changed state (including download progress).
        case photo(index: Int, state: PhotoState)
        /// A record being filtered has its unfiltered thumbnail (`ImageVariant.preview`) ready.
        case preview(index: Int)
        /// An operation started, or ended with an outcome.
        case operation(OperationEvent)
    }
}

/// The two named queues of `PendingOperations`.
public enum QueueKind: String, Sendable, CaseIterable {
    case download
    case filtration
}

/// An operation's start or end, with the queue slot it ran in (one timeline lane per slot).
public struct OperationEvent: Sendable, Equatable {
    /// What became of the operation.
    public enum Outcome: String, Sendable {
        case started, finished, failed, cancelled
    }

    /// The queue the operation ran on.
    public var queue: QueueKind
    /// The photo it worked on.
    public var index: Int
    /// Started, or how it ended.
    public var outcome: Outcome
    /// The lane (0 ..< queue concurrency) it occupied; nil for operations cancelled before they started.
    public var slot: Int?
}
