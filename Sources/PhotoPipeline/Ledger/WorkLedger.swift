import Foundation

/// What the work on each photo cost (bytes, downloads, aborted transfers, filter CPU time, bytes a
/// resume saved), what each viewer's own work cost, and which rows each viewer has seen: the server
/// totals, the waste (work on rows nobody saw) and each viewer's share of both are derived from here
/// and kept nowhere else.
///
/// Seen means a person saw the row: it was on the viewer's screen at a stop or while it read at a
/// reading pace, never only passed in a flick (`PhotoListController` decides, from its reports).
///
/// A value type with no lock of its own: the pipeline keeps it behind its one lock.
struct WorkLedger {
    /// What was spent on one photo.
    struct PhotoWork: Equatable {
        /// Body bytes received from the network, aborted transfers included.
        var bytes: Int64 = 0
        var downloads = 0
        var aborts = 0
        var filterSeconds: Double = 0
        /// Bytes not fetched again: a resumed transfer continued from them.
        var resumedBytes: Int64 = 0
    }

    private(set) var work: [Int: PhotoWork] = [:]
    /// Rows some viewer has seen: work on any other row is waste.
    private var seen = IndexSet()
    /// Each viewer's own work, and its waste on the rows it has not seen.
    private var viewers: [ViewerID: ViewerWork] = [:]
    /// Work done on rows before anyone saw them, on the rows seen since: it left the waste then.
    private var seenSince = PhotoWork()

    /// `viewer` saw rows `rows`.
    mutating func markSeen(_ rows: ClosedRange<Int>, by viewer: ViewerID) {
        let firstSeen = IndexSet(integersIn: rows).subtracting(seen)
        // Whichever is shorter is walked: the rows seen for the first time, or the rows with work.
        let indices = firstSeen.count < work.count ? Array(firstSeen) : work.keys.filter(firstSeen.contains)
        for index in indices {
            guard let photo = work[index] else { continue }
            seenSince.bytes += photo.bytes
            seenSince.downloads += photo.downloads
            seenSince.filterSeconds += photo.filterSeconds
        }
        seen.insert(integersIn: rows)
        viewers[viewer, default: ViewerWork()].see(rows)
    }

    /// An operation ended: its cost counts for every viewer it worked for.
    mutating func account(_ operation: OperationEvent) {
        guard operation.outcome != .started else { return }
        for viewer in operation.viewers {
            viewers[viewer, default: ViewerWork()].add(operation)
        }
    }

    /// `viewer`'s own work and waste so far.
    func work(of viewer: ViewerID) -> ViewerWork {
        viewers[viewer] ?? ViewerWork()
    }

    /// Forgets `viewer`'s own work: it left.
    mutating func forget(_ viewer: ViewerID) {
        viewers[viewer] = nil
    }

    /// `bytes` more arrived from the network for photo `index`.
    mutating func add(bytes: Int64, for index: Int) {
        work[index, default: PhotoWork()].bytes += bytes
    }

    /// A download of photo `index` finished, continuing `resumedBytes` an earlier attempt had fetched.
    mutating func countDownload(of index: Int, resumedBytes: Int) {
        work[index, default: PhotoWork()].downloads += 1
        work[index, default: PhotoWork()].resumedBytes += Int64(resumedBytes)
    }

    /// A transfer of photo `index` was aborted while running.
    mutating func countAbort(of index: Int) {
        work[index, default: PhotoWork()].aborts += 1
    }

    /// A filtration of photo `index` used `seconds` of CPU.
    mutating func add(filterSeconds seconds: Double, for index: Int) {
        work[index, default: PhotoWork()].filterSeconds += seconds
    }

    /// Writes the totals and the waste into `stats`.
    func fill(_ stats: inout PipelineStats) {
        stats.seenSinceBytes = seenSince.bytes
        stats.seenSinceDownloads = seenSince.downloads
        stats.seenSinceFilterSeconds = seenSince.filterSeconds
        for (index, photo) in work {
            stats.bytesDownloaded += photo.bytes
            stats.transfersAborted += photo.aborts
            stats.filterSeconds += photo.filterSeconds
            stats.resumedBytes += photo.resumedBytes
            guard !seen.contains(index) else { continue }
            stats.wastedBytes += photo.bytes
            stats.wastedDownloads += photo.downloads
            stats.wastedFilterSeconds += photo.filterSeconds
        }
    }
}
