import Foundation
import HTTPTransfer

/// The tutorial's `PendingOperations`: the operations in progress for each photo, the two named
/// queues they run on, which of them run in which timeline track, and how many started and ended.
/// One instance serves every viewer, so its widths are the global bounds: the download queue's is
/// `maxConcurrentTransfers`, within which the pipeline grants prefetch and background downloads
/// their own, smaller bound (`PhotoPipeline+Permits.swift`).
///
/// Not thread-safe by itself: the pipeline keeps it behind its lock. Nothing here calls an
/// operation or a queue: the pipeline does that once the lock is released.
struct PendingOperations {
    /// Download operations by photo index; at most one per photo, however many viewers want it.
    var downloadsInProgress: [Int: ImageDownloader] = [:]
    /// The queue transfers wait and run on.
    let downloadQueue: OperationQueue
    /// Filtration operations by photo index; at most one per photo.
    var filtrationsInProgress: [Int: ImageFiltration] = [:]
    /// The queue decoding, filtering and encoding run on.
    let filtrationQueue: OperationQueue

    /// What runs now, in which track, including operations no longer in progress that are winding down.
    private var tracks: [QueueKind: OperationTracks] = [.download: .init(), .filtration: .init()]
    private var counts: [QueueKind: PipelineStats.QueueCounts] = [.download: .init(), .filtration: .init()]

    init(maxConcurrentTransfers: Int, maxConcurrentFiltrations: Int) {
        downloadQueue = OperationQueue()
        downloadQueue.name = "Download queue"
        downloadQueue.maxConcurrentOperationCount = maxConcurrentTransfers
        filtrationQueue = OperationQueue()
        filtrationQueue.name = "Image Filtration queue"
        filtrationQueue.maxConcurrentOperationCount = maxConcurrentFiltrations
        // Different QoS classes run on different libdispatch thread pools: a download only needs a
        // thread for a moment to hand its transfer to the loop, and must not wait behind filtrations
        // that keep every core busy.
        downloadQueue.qualityOfService = .userInitiated
        filtrationQueue.qualityOfService = .utility
    }

    /// The queue `kind` runs on.
    func queue(_ kind: QueueKind) -> OperationQueue {
        kind == .download ? downloadQueue : filtrationQueue
    }

    /// The operations in progress for photo `index`, filtration first (it depends on the download).
    func operations(for index: Int) -> [PhotoOperation] {
        [filtrationsInProgress[index], downloadsInProgress[index]].compactMap { $0 }
    }

    /// Removes `operation` from the in-progress table if it is still the one recorded there.
    mutating func remove(_ operation: PhotoOperation) {
        switch operation.queue {
        case .download:
            if downloadsInProgress[operation.index] === operation {
                downloadsInProgress[operation.index] = nil
            }
        case .filtration:
            if filtrationsInProgress[operation.index] === operation {
                filtrationsInProgress[operation.index] = nil
            }
        }
    }

    /// Empties both in-progress tables and returns what they held (to cancel once the lock is released).
    mutating func removeAll() -> [PhotoOperation] {
        defer {
            downloadsInProgress.removeAll()
            filtrationsInProgress.removeAll()
        }
        return downloadsInProgress.values.map { $0 as PhotoOperation } + filtrationsInProgress.values.map { $0 }
    }

    // MARK: Running

    /// `operation` starts: it takes the lowest free track of its queue, which is returned.
    mutating func start(_ operation: PhotoOperation) -> Int {
        counts[operation.queue, default: .init()].started += 1
        let track = tracks[operation.queue, default: .init()].enter(operation)
        let running = tracks[operation.queue]?.count ?? 0
        if running > counts[operation.queue, default: .init()].mostExecuting {
            counts[operation.queue, default: .init()].mostExecuting = running
        }
        return track
    }

    /// `operation` ended with `outcome`: its track (returned; nil if it never started) is free again.
    /// One cancelled without a track never started: it is counted apart from those that ran.
    mutating func end(_ operation: PhotoOperation, _ outcome: OperationEvent.Outcome) -> Int? {
        let track = tracks[operation.queue, default: .init()].leave(operation)
        switch outcome {
        case .finished: counts[operation.queue, default: .init()].finished += 1
        case .failed: counts[operation.queue, default: .init()].failed += 1
        case .cancelled:
            if track == nil {
                counts[operation.queue, default: .init()].cancelledQueued += 1
            } else {
                counts[operation.queue, default: .init()].cancelledRunning += 1
            }
        case .started: break
        }
        return track
    }

    /// Records a running download's progress; returns its report before this one.
    mutating func record(_ progress: TransferProgress, of download: PhotoOperation) -> TransferProgress? {
        tracks[.download, default: .init()].record(progress, of: download)
    }

    /// A running download's latest progress report.
    func progress(of download: PhotoOperation) -> TransferProgress? {
        tracks[.download]?.progress(of: download)
    }

    /// What photo `index` is going through now: downloading (with its progress) or filtering; nil at rest.
    func activity(of index: Int) -> PhotoRecordState? {
        if let download = tracks[.download]?.occupant(workingOn: index) {
            return .downloading(progress: download.progress?.fraction)
        }
        return tracks[.filtration]?.occupant(workingOn: index) != nil ? .filtering : nil
    }

    /// Whether an operation of photo `index` still runs though it is no longer in progress (it was
    /// cancelled and has not ended yet).
    func isWindingDown(_ index: Int) -> Bool {
        func windsDown(_ queue: QueueKind, inProgress: PhotoOperation?) -> Bool {
            guard let running = tracks[queue]?.occupant(workingOn: index) else { return false }
            return inProgress.map(ObjectIdentifier.init) != running.operation
        }
        return windsDown(.download, inProgress: downloadsInProgress[index])
            || windsDown(.filtration, inProgress: filtrationsInProgress[index])
    }

    /// Whether `operation` is running (between its start and its end).
    func isRunning(_ operation: PhotoOperation) -> Bool {
        tracks[operation.queue]?.isRunning(operation) ?? false
    }

    /// Operation counts of `queue`: started and ended so far, how many run now (every started one
    /// not ended, cancelled ones winding down included, so the counts add up), and how many of those
    /// in progress wait.
    func counts(of queue: QueueKind) -> PipelineStats.QueueCounts {
        var counts = counts[queue] ?? .init()
        let inProgress: [PhotoOperation] = queue == .download
            ? downloadsInProgress.values.map { $0 } : filtrationsInProgress.values.map { $0 }
        counts.executing = tracks[queue]?.count ?? 0
        counts.pending = inProgress.count { !isRunning($0) }
        return counts
    }
}
