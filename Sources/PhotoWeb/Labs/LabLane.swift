import Logging
import PhotoPipeline

/// One lane of a lab: for a server lane, a channel of its own (a pipeline with its own memory
/// cache, no disk cache, its own queue widths) and its one viewer, driven through the usual
/// `GET /events` and `POST /api/viewport`, and the times of its scroll stops. A `browser` lane has
/// none of these: the page runs it alone. A lane does nothing until its viewer's first report (the
/// eager one included): every lane starts cold at the trace's first step, not when the page opens.
final class LabLane: Sendable {
    let kind: LabRequest.Lane
    /// The lane's channel, for server lanes.
    let channel: PhotoChannel?
    /// The lane's viewer, for server lanes.
    let viewer: ViewerSession?
    let stops: LabStops

    /// A browser lane.
    init() {
        kind = .browser
        channel = nil
        viewer = nil
        stops = LabStops()
    }

    /// A server lane following `strategy` over `entries`, its pipeline made with `configuration`,
    /// its viewer one of `viewers`; a 503 when the server has its maximum of viewers.
    init(
        strategy: SchedulingStrategy, entries: [PhotoEntry], configuration: PipelineConfiguration,
        viewers: ViewerRegistry, settings: PhotoChannel.Settings, logger: Logger
    ) throws(APIError) {
        kind = .server(strategy)
        let stops = LabStops()
        self.stops = stops
        let pipeline = PhotoPipeline(entries: entries, configuration: configuration)
        let library = PhotoLibrary()
        library.finish(with: .ready(pipeline))
        let channel = PhotoChannel(
            library: library, viewers: viewers, settings: settings, totals: ServerTotals(cluster: nil, unsent: nil),
            stops: stops, logger: logger)
        guard let viewer = viewers.create(in: channel) else {
            pipeline.shutdown()
            throw viewers.refusal
        }
        self.channel = channel
        self.viewer = viewer
        // Its controller is made by its first report (`ViewerSession.receive`), following this strategy.
        viewer.choose(strategy)
        channel.startForwarding(pipeline)
    }

    /// The lane's pipeline, for server lanes.
    var pipeline: PhotoPipeline? { channel?.library.pipeline }

    /// Whether the lane's viewer was dropped (its page left) or left.
    func lostViewer(in viewers: ViewerRegistry) -> Bool {
        guard let viewer else { return false }
        return viewers.session(viewer.id) == nil
    }

    /// Ends the lane: its viewer leaves, its work is cancelled (transfers aborted) and its events end.
    func close() {
        channel?.close()
    }
}
