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
        case photo(index: Int, state: PhotoRecordState)
        /// A record being filtered has its unfiltered thumbnail (`ImageVariant.preview`) ready.
        case preview(index: Int)
        /// A photo still downloading has a new sepia preview of its bytes arrived so far
        /// (`ImageVariant.partial`), the `sequence`-th; `state` is the photo's state then.
        case partialPreview(index: Int, sequence: Int, state: PhotoRecordState)
        /// An operation started, or ended with an outcome.
        case operation(OperationEvent)
    }
}

/// The two named queues of `PendingOperations`.
public enum QueueKind: String, Sendable, CaseIterable {
    case download
    case filtration
}

/// An operation's start or end, with the timeline track it ran on (a queue has one track per
/// operation it can run at once).
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
    /// The track (0 ..< queue concurrency) it occupied; nil for operations cancelled before they started.
    public var track: Int?
    /// The viewers it worked for: every viewer that wanted its photo while it existed.
    public var viewers: Set<ViewerID> = []
    /// At a download's end: the bytes this transfer fetched from the network (resumed bytes not counted).
    public var bytes: Int64?
    /// At a filtration's end: the CPU seconds it took.
    public var cpuSeconds: Double?

    public init(
        queue: QueueKind, index: Int, outcome: Outcome, track: Int?,
        viewers: Set<ViewerID> = [], bytes: Int64? = nil, cpuSeconds: Double? = nil
    ) {
        (self.queue, self.index, self.outcome, self.track) = (queue, index, outcome, track)
        (self.viewers, self.bytes, self.cpuSeconds) = (viewers, bytes, cpuSeconds)
    }
}
