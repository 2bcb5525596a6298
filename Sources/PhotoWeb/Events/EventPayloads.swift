import Foundation
import HTTPTransfer
import PhotoPipeline

/// The JSON bodies of events and API responses, as documented in the README's contract.
enum EventPayloads {
    /// A row's state: `{"index", "state", "progress", "reason"}` (plus name and url in lists, and
    /// `"preview": true` once a row being filtered has its unfiltered thumbnail, `"partial": N` when a
    /// row still downloading has its N-th preview of the bytes arrived).
    struct Photo: Encodable {
        var index: Int
        var name: String?
        var url: String?
        var state: String
        var progress: Double?
        var reason: String?
        /// The technical text behind `reason`, for failed rows.
        var detail: String?
        var preview = false
        /// A row still downloading: the sequence number of its latest sepia preview of the bytes arrived.
        var partial: Int?

        init(index: Int, state: PhotoRecordState, record: PhotoRecord? = nil, preview: Bool = false, partial: Int? = nil) {
            self.preview = preview
            self.partial = partial
            self.index = index
            self.name = record?.name
            self.url = record.map { URLCredentials.redacted($0.url) }
            self.state = state.name
            switch state {
            case .downloading(let progress): self.progress = progress
            case .failed(let reason, let detail):
                self.reason = reason
                self.detail = detail.isEmpty ? nil : detail
            default: break
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(index, forKey: .index)
            try container.encodeIfPresent(name, forKey: .name)
            try container.encodeIfPresent(url, forKey: .url)
            try container.encode(state, forKey: .state)
            try container.encode(progress, forKey: .progress)  // null when unknown, as the contract says
            try container.encode(reason, forKey: .reason)
            try container.encodeIfPresent(detail, forKey: .detail)
            if preview { try container.encode(true, forKey: .preview) }
            try container.encodeIfPresent(partial, forKey: .partial)
        }

        enum CodingKeys: String, CodingKey { case index, name, url, state, progress, reason, detail, preview, partial }
    }

    /// `event: source` and the status part of `GET /api/photos`.
    struct Source: Encodable {
        var status: String
        var count: Int
        var error: String?
        /// With `--photos-dir`: the files not listed, when there are any.
        var skipped: [SkippedPhoto]? = nil
    }

    /// `event: snapshot`: the rows near the viewer's viewport (not the whole list: a viewer is sent
    /// the others as they come near), the list's length and how many photos are in each state.
    struct Snapshot: Encodable {
        var photos: [Photo]
        var count: Int
        var states: [String: Int]
        /// The viewer's strategy (its tab's choice or the server's default) and prefetch margin.
        var strategy: String?
        var prefetch: Int?
    }

    /// `GET /api/photos`.
    struct PhotoList: Encodable {
        var status: String
        var count: Int
        var error: String?
        /// The index of the first row in `photos`.
        var from: Int
        /// Where the next page starts, or absent on the last page.
        var next: Int?
        var photos: [Photo]
    }

    /// `event: queues`: one viewer's queues.
    struct Queues: Encodable, Equatable {
        struct Queue: Encodable, Equatable {
            var pending: Int
            var executing: Int
            var suspended: Bool
        }
        var download: Queue
        var filtration: Queue
        /// The strategy this viewer's work follows, and its prefetch margin.
        var strategy: String
        var prefetch: Int
        /// What the operations done for this viewer cost since it came, and the part of it spent on
        /// rows it has not had on screen yet.
        var work: ViewerWork.Amount
        var waste: ViewerWork.Amount
        /// Work once in `waste` on rows this viewer has seen since: why `waste` went down.
        var seenSince: ViewerWork.Amount
        /// True when these are a presenter's queues sent to its followers (their panels say whose); absent for a viewer's own.
        var presenter: Bool?

        init(_ status: ViewerQueueStatus, strategy: SchedulingStrategy) {
            download = Queue(pending: status.download.pending, executing: status.download.executing, suspended: status.download.suspended)
            filtration = Queue(pending: status.filtration.pending, executing: status.filtration.executing, suspended: status.filtration.suspended)
            self.strategy = strategy.name
            prefetch = strategy.prefetchMarginForDisplay
            (work, waste, seenSince) = (status.work, status.waste, status.seenSince)
        }
    }

    /// `event: stats` and `GET /api/stats`: the pipeline's totals plus the server's own.
    struct Stats: Encodable, Equatable {
        struct Counts: Encodable, Equatable {
            var started, finished, failed, cancelled, cancelledRunning, cancelledQueued, pending, executing: Int
            /// The most running at once since the server started: every tab's "Most at once".
            var mostExecuting: Int
            init(_ counts: PipelineStats.QueueCounts) {
                mostExecuting = counts.mostExecuting
                (started, finished, failed, cancelled, pending, executing) =
                    (counts.started, counts.finished, counts.failed, counts.cancelled, counts.pending, counts.executing)
                (cancelledRunning, cancelledQueued) = (counts.cancelledRunning, counts.cancelledQueued)
            }
        }
        var downloads: Counts
        var filtrations: Counts
        var bytesDownloaded: Int64
        var transfersAborted: Int
        /// Bytes kept from cancelled transfers, to resume from; bytes that resumed transfers did not fetch again.
        var resumableBytes: Int
        var resumedBytes: Int64
        /// Decodes of bytes still arriving made for previews, in all.
        var previewDecodes: Int
        /// Final thumbnails whose decode was made as the bytes arrived, in all.
        var decodedAhead: Int
        /// How many photos of the whole list are in each state (`new`, ..., `failed`).
        var states: [String: Int]
        var cacheHits: Int
        var cacheMisses: Int
        var cacheBytes: Int
        var wastedBytes: Int64
        var wastedDownloads: Int
        var wastedFilterSeconds: Double
        /// Work once counted as wasted whose rows a viewer has seen since (the wasted figures went down by it).
        var seenSinceBytes: Int64
        var seenSinceDownloads: Int
        var seenSinceFilterSeconds: Double
        var filterSeconds: Double
        var viewers: Int
        var maxConcurrentDownloads: Int
        var maxConcurrentFiltrations: Int
        /// With several instances: `connected`, or `lost` while PostgreSQL is unreachable. Absent in one process.
        var database: String?
        /// Bytes of events queued for the list's viewers and not yet read by them (absent for a lab lane).
        var unsentEventBytes: Int?

        init(_ stats: PipelineStats, viewers: Int, configuration: PipelineConfiguration) {
            downloads = Counts(stats.downloads)
            filtrations = Counts(stats.filtrations)
            bytesDownloaded = stats.bytesDownloaded
            transfersAborted = stats.transfersAborted
            resumableBytes = stats.resumableBytes
            resumedBytes = stats.resumedBytes
            previewDecodes = stats.previewDecodes
            decodedAhead = stats.decodedAhead
            states = stats.states
            cacheHits = stats.cacheHits
            cacheMisses = stats.cacheMisses
            cacheBytes = stats.cacheBytes
            wastedBytes = stats.wastedBytes
            wastedDownloads = stats.wastedDownloads
            wastedFilterSeconds = (stats.wastedFilterSeconds * 1_000).rounded() / 1_000
            seenSinceBytes = stats.seenSinceBytes
            seenSinceDownloads = stats.seenSinceDownloads
            seenSinceFilterSeconds = (stats.seenSinceFilterSeconds * 1_000).rounded() / 1_000
            filterSeconds = (stats.filterSeconds * 1_000).rounded() / 1_000
            self.viewers = viewers
            maxConcurrentDownloads = configuration.maxConcurrentDownloads
            maxConcurrentFiltrations = configuration.maxConcurrentFiltrations
        }
    }

    /// `event: operation`: one bar end of the timeline, `mine` when it was done for the receiving viewer.
    struct Operation: Encodable {
        var queue: String
        var index: Int
        var outcome: String
        /// The timeline track; `slot` on the wire (the contract's name).
        var track: Int?
        var time: Double
        var mine: Bool
        /// A download's end: the bytes it fetched; a filtration's end: its CPU seconds.
        var bytes: Int64?
        var cpuSeconds: Double?

        init(_ event: OperationEvent, time: Double, mine: Bool) {
            queue = event.queue.rawValue
            index = event.index
            outcome = event.outcome.rawValue
            track = event.track
            self.time = (time * 1_000).rounded() / 1_000
            self.mine = mine
            bytes = event.bytes
            cpuSeconds = event.cpuSeconds.map { ($0 * 1_000).rounded() / 1_000 }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(queue, forKey: .queue)
            try container.encode(index, forKey: .index)
            try container.encode(outcome, forKey: .outcome)
            try container.encode(track, forKey: .track)
            try container.encode(time, forKey: .time)
            try container.encode(mine, forKey: .mine)
            try container.encodeIfPresent(bytes, forKey: .bytes)
            try container.encodeIfPresent(cpuSeconds, forKey: .cpuSeconds)
        }

        enum CodingKeys: String, CodingKey { case queue, index, outcome, track = "slot", time, mine, bytes, cpuSeconds }
    }

    /// `event: shutdown`.
    struct Shutdown: Encodable {
        var reason: String
    }

    /// `POST /api/viewers`.
    struct Viewer: Encodable {
        var viewer: String
    }

    /// Every error response: `{"error": "reason"}`.
    struct Failure: Encodable {
        var error: String
    }

    /// Encodes `value` as compact JSON on one line (SSE data must not contain newlines), keys
    /// sorted so the same value is always the same bytes (caches and gzip negotiation compare them).
    static func json(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        // Encoding these plain structs cannot fail; an empty object keeps the stream well-formed if it did.
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }
}
