import Locking
import Logging
import PhotoPipeline

/// One photo list and the viewers that drive it, with one event forwarder (`forward`) and one
/// ticker (`tick`): the server's list is a channel, and so is each server lane of a lab, on a
/// pipeline of its own. A viewer belongs to one channel (`ViewerSession.channel`): its viewport
/// reports reach that channel's pipeline, and that pipeline's events reach it.
///
/// Lock order: the channel's lock is a leaf; the registry, sessions and outboxes are called after
/// it is released.
final class PhotoChannel: Sendable {
    /// How the channel's viewers are kept.
    struct Settings: Sendable {
        /// A comment is sent on a viewer's stream quiet this long.
        var heartbeat: Duration
        /// A viewer whose event stream has been gone this long is dropped and its work cancelled.
        var idleTimeout: Duration
        /// A viewer that never opened its stream is dropped after this.
        var connectTimeout: Duration
        /// Whether photos that fail are logged: the list's are; a lab's lanes fail the same photos again.
        var logsFailures = true
        /// Operations done for others reach a viewer in a batch once this pace (`BystanderRelay`), nil:
        /// each at once (a lab lane's one viewer).
        var bystanderPace: Duration? = nil
    }

    /// The photo list it serves: loading, ready with its pipeline, or failed with why.
    let library: PhotoLibrary
    /// Every viewer of every channel; this channel's are `viewers.all(in: self)`.
    let viewers: ViewerRegistry
    let settings: Settings
    /// The totals its `stats` events and snapshots carry.
    let totals: ServerTotals
    /// Told of its viewers' scroll stops and of rows done (a lab lane times its stops).
    let stops: (any ScrollStopWatching)?
    /// The presentations its viewers follow, if any (the server's list; a lab lane has none), and
    /// what hands the list's events on to their followers.
    let presentations: Presentations?
    let followerRelay: FollowerRelay?
    /// What hands operations on to the viewers they were not done for, if paced.
    let bystanderRelay: BystanderRelay?
    let logger: Logger

    private struct State {
        /// The totals last sent, so that a tick sends them only when they changed.
        var lastStats: EventPayloads.Stats?
        /// The forwarder started by `startForwarding`, ended by `close`.
        var forwarder: Task<Void, Never>?
    }

    private let state = Locked(State())

    init(
        library: PhotoLibrary, viewers: ViewerRegistry, settings: Settings, totals: ServerTotals,
        stops: (any ScrollStopWatching)? = nil, presentations: Presentations? = nil, logger: Logger
    ) {
        self.library = library
        self.viewers = viewers
        self.settings = settings
        self.totals = totals
        self.stops = stops
        self.presentations = presentations
        followerRelay = presentations.map { FollowerRelay(pace: $0.settings.followerPace) }
        bystanderRelay = settings.bystanderPace.map { BystanderRelay(pace: $0) }
        self.logger = logger
    }

    /// The pipeline once the list is loaded, or a 409 saying where loading stands.
    func loadedPipeline() throws(APIError) -> PhotoPipeline {
        guard let pipeline = library.pipeline else {
            throw .conflict("the photo list is not loaded yet (\(library.source.status))")
        }
        return pipeline
    }

    /// The channel's totals now: its pipeline's figures, its viewers, and the server's own.
    func stats(of pipeline: PhotoPipeline) -> EventPayloads.Stats {
        totals.stats(of: pipeline, viewers: viewers.count(in: self))
    }

    /// Records `stats` as sent; false when they say nothing the last ones did not.
    func noteSent(_ stats: EventPayloads.Stats) -> Bool {
        state.withLock { state in
            guard ServerTotals.changed(stats, from: state.lastStats) else { return false }
            state.lastStats = stats
            return true
        }
    }

    /// Subscribes to `pipeline`'s events now, before any work starts (an eager controller asks for
    /// every row as it is made), and forwards them in a task of their own until `close`.
    func startForwarding(_ pipeline: PhotoPipeline) {
        let events = Self.subscribe(to: pipeline)
        let forwarder = Task { await forwardAndRelay(events, of: pipeline) }
        state.withLock { $0.forwarder = forwarder }
    }

    /// The channel's followers now that have opened their stream (one that has not gets the
    /// presentation in its first stream's snapshot), and each one's presenter.
    func audience() -> (followers: [ViewerSession], presenters: [ViewerID: ViewerID]) {
        let presenters = presentations?.presenterOfFollowers() ?? [:]
        guard !presenters.isEmpty else { return ([], [:]) }
        return (viewers.streaming(in: self).filter { presenters[$0.id] != nil }, presenters)
    }

    /// Forwards `pipeline`'s events (and hands the followers theirs) until its stream ends or the
    /// calling task is cancelled.
    func forwardEvents(of pipeline: PhotoPipeline) async {
        await forwardAndRelay(Self.subscribe(to: pipeline), of: pipeline)
    }

    /// The channel's viewers that are not followers and have opened their stream: those the
    /// bystanders' relay serves.
    func nonFollowers() -> [ViewerSession] {
        let presenters = presentations?.presenterOfFollowers() ?? [:]
        let all = viewers.streaming(in: self)
        return presenters.isEmpty ? all : all.filter { presenters[$0.id] == nil }
    }

    /// `forward`, with the followers' and the bystanders' relays running beside it as long as it does.
    private func forwardAndRelay(_ events: AsyncStream<PipelineEvent>, of pipeline: PhotoPipeline) async {
        guard followerRelay != nil || bystanderRelay != nil else { return await forward(events, of: pipeline) }
        await withDiscardingTaskGroup { group in
            if let followerRelay { group.addTask { await followerRelay.run { self.audience() } } }
            if let bystanderRelay { group.addTask { await bystanderRelay.run { self.nonFollowers() } } }
            await forward(events, of: pipeline)
            group.cancelAll()
        }
    }

    private static func subscribe(to pipeline: PhotoPipeline) -> AsyncStream<PipelineEvent> {
        pipeline.events.subscribe(bufferLimit: 100_000)
    }

    /// Ends the channel: its viewers leave (their work cancelled), its pipeline's work is cancelled
    /// (transfers aborted) and its events end.
    func close() {
        viewers.removeAll(in: self).forEach { $0.close() }
        library.pipeline?.shutdown()
        state.withLock { $0.forwarder }?.cancel()
    }
}
