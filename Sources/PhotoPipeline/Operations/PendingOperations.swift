import Foundation

/// The tutorial's `PendingOperations`: the operations in progress for each photo, and the two named
/// queues they run on. One instance serves every viewer, so its widths are the global bounds.
///
/// Not thread-safe by itself: the pipeline keeps it behind its lock.
struct PendingOperations {
    /// Download operations by photo index; at most one per photo, however many viewers want it.
    var downloadsInProgress: [Int: ImageDownloader] = [:]
    /// The queue transfers wait and run on.
    let downloadQueue: OperationQueue
    /// Filtration operations by photo index; at most one per photo.
    var filtrationsInProgress: [Int: ImageFiltration] = [:]
    /// The queue decoding, filtering and encoding run on.
    let filtrationQueue: OperationQueue

    private var busySlots: [QueueKind: Set<Int>] = [.download: [], .filtration: []]

    init(maxConcurrentDownloads: Int, maxConcurrentFiltrations: Int) {
        downloadQueue = OperationQueue()
        downloadQueue.name = "Download queue"
        downloadQueue.maxConcurrentOperationCount = maxConcurrentDownloads
        filtrationQueue = OperationQueue()
        filtrationQueue.name = "Image Filtration queue"
        filtrationQueue.maxConcurrentOperationCount = maxConcurrentFiltrations
        // Different QoS classes run on different libdispatch thread pools: a download only needs a
        // thread for a moment to hand its transfer to the loop, and must not wait behind filtrations
        // that keep every core busy.
        downloadQueue.qualityOfService = .userInitiated
        filtrationQueue.qualityOfService = .utility
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

    /// Takes the lowest free timeline lane of `queue`.
    mutating func takeSlot(_ queue: QueueKind) -> Int {
        var slot = 0
        while busySlots[queue, default: []].contains(slot) { slot += 1 }
        busySlots[queue, default: []].insert(slot)
        return slot
    }

    /// Gives a lane back.
    mutating func releaseSlot(_ slot: Int, of queue: QueueKind) {
        busySlots[queue]?.remove(slot)
    }
}
