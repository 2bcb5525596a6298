import Foundation
import Locking
import PhotoPipeline

/// One lab: lanes side by side over the same photos and simulated network, each cold (a pipeline of
/// its own), driven by one scroll in the page.
final class Lab: Sendable {
    let id: String
    let network: LabNetwork
    let photos: Int
    let lanes: [LabLane]
    /// The browser lane's image URLs, row by row.
    let browserImages: [String]
    /// The page's summary of its last trace, once one ended (its followers show it). Lock order: a leaf.
    private let lastSummary = Locked<LabSummary?>(nil)

    init(id: String, network: LabNetwork, photos: Int, lanes: [LabLane], browserImages: [String]) {
        self.id = id
        self.network = network
        self.photos = photos
        self.lanes = lanes
        self.browserImages = browserImages
    }

    /// The lab's settings, every lane's figures so far, and the summary of its last trace.
    var report: LabPayloads.Lab {
        LabPayloads.Lab(
            lab: id, latencyMs: network.latencyMs, bandwidth: network.bandwidth, photos: photos,
            lanes: lanes.map(report(of:)), summary: lastSummary.withLock { $0 })
    }

    /// Keeps `summary` as the one of the lab's last trace (in place of an earlier trace's).
    func keep(_ summary: LabSummary) {
        lastSummary.withLock { $0 = summary }
    }

    private func report(of lane: LabLane) -> LabPayloads.Lane {
        guard case .server(let strategy) = lane.kind, let pipeline = lane.pipeline else {
            return LabPayloads.Lane(viewer: nil, strategy: lane.kind.name, images: browserImages)
        }
        let stats = pipeline.stats
        let recent = lane.stops.recent
        return LabPayloads.Lane(
            viewer: lane.viewer?.id.rawValue, strategy: strategy.name,
            prefetch: { if case .prefetch(let margin) = strategy { margin } else { nil } }(),
            bytesDownloaded: stats.bytesDownloaded, bytesWasted: stats.wastedBytes,
            filterSecondsWasted: stats.wastedFilterSeconds, filterSeconds: stats.filterSeconds,
            transfersAborted: stats.transfersAborted,
            operationsCancelled: stats.downloads.cancelled + stats.filtrations.cancelled,
            downloads: stats.downloads.finished, filtered: stats.filtrations.finished,
            downloadCounts: .init(stats.downloads), filtrationCounts: .init(stats.filtrations),
            stops: recent.stops, stopCounts: recent.counts)
    }

    /// Whether the page left: some lane's viewer was dropped by `viewers` (no event stream for its
    /// channel's idle timeout) or left.
    func isAbandoned(in viewers: ViewerRegistry) -> Bool {
        lanes.contains { $0.lostViewer(in: viewers) }
    }

    /// Since when the page has been gone: every server lane's viewer has had no event stream since
    /// then (the latest of theirs); nil while one has a stream, or has not had one yet.
    var idleSince: ContinuousClock.Instant? {
        let since = lanes.compactMap(\.viewer).map(\.outbox.detachedSince)
        guard !since.isEmpty, !since.contains(nil) else { return nil }
        return since.compactMap { $0 }.max()
    }

    /// Ends every lane at once: viewers gone, transfers aborted, memory released with the pipelines.
    func close() {
        lanes.forEach { $0.close() }
    }
}
