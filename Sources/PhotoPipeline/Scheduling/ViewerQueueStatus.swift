/// One viewer's view of the queues: how many of the operations it wants are waiting or running, and
/// what its own work cost so far; read in one locked section.
public struct ViewerQueueStatus: Sendable, Equatable {
    /// Counts for one queue.
    public struct Queue: Sendable, Equatable {
        /// Wanted operations not yet running.
        public var pending = 0
        /// Wanted operations running now.
        public var executing = 0
        /// True while the viewer scrolls: its pending operations do not start.
        public var suspended = false
    }

    /// The download queue as this viewer sees it.
    public var download = Queue()
    /// The filtration queue as this viewer sees it.
    public var filtration = Queue()
    /// What the operations done for this viewer cost since it came.
    public var work = ViewerWork.Amount()
    /// The part of `work` spent on rows this viewer has not seen.
    public var waste = ViewerWork.Amount()
    /// Work once in `waste` on rows this viewer has seen since (why `waste` went down).
    public var seenSince = ViewerWork.Amount()

    public init() {}
}
