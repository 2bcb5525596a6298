import Foundation
import PhotoPipeline

/// The JSON of the labs API (`POST /api/labs`, `GET /api/labs/ID`), as documented in the README.
enum LabPayloads {
    /// A lab: its settings and each lane's figures so far.
    struct Lab: Encodable {
        var lab: String
        var latencyMs: Int
        var bandwidth: Int
        var photos: Int
        var lanes: [Lane]
        /// The page's summary of its last trace (absent before one ended).
        var summary: LabSummary?
    }

    /// One lane: its viewer (null for the browser lane), strategy and figures.
    struct Lane: Encodable {
        var viewer: String?
        var strategy: String
        var prefetch: Int?
        var bytesDownloaded: Int64 = 0
        /// Bytes and filter CPU spent on rows never visible in this lab.
        var bytesWasted: Int64 = 0
        var filterSecondsWasted: Double = 0
        var filterSeconds: Double = 0
        var transfersAborted = 0
        var operationsCancelled = 0
        var downloads = 0
        var filtered = 0
        /// Each queue's ledger, as `/api/stats` gives the server's (nil for the browser lane).
        var downloadCounts: EventPayloads.Stats.Counts?
        var filtrationCounts: EventPayloads.Stats.Counts?
        /// The most recent scroll stops (at most `LabStops.keptByDefault`), with their time to visible.
        var stops: [LabStops.Stop] = []
        /// How many stops were reported, timed and abandoned in all (kept or not).
        var stopCounts = LabStops.Counts()
        /// The browser lane's image URLs, row by row (the same photos and network as the server lanes).
        var images: [String]?
    }
}

extension EventPayloads.Stats {
    /// A lab lane's totals: its own pipeline's, for its one viewer.
    init(lane pipeline: PhotoPipeline) {
        self.init(pipeline.stats, viewers: 1, configuration: pipeline.configuration)
    }
}
