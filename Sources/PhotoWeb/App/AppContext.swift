import Foundation
import Hummingbird
import Logging
import NIOCore
import Mustache
import PhotoPipeline

/// What every handler shares: the photo list, the viewers, the templates and the settings.
struct AppContext: Sendable {
    let configuration: ServerConfiguration
    let library: PhotoLibrary
    let viewers: ViewerRegistry
    /// The labs running now, with their lanes' viewers.
    let labs: LabRegistry
    let templates: MustacheLibrary
    /// The page's files, read at start, with the version their URLs carry.
    let staticFiles: StaticFiles
    /// New viewers per client address.
    let rateLimiter: ClientRateLimiter
    /// Retries of failed photos, per client address and per photo.
    let retries: RetryLimits
    /// Peers whose `X-Forwarded-For` names the client.
    let trustedProxies: ClientAddress.TrustedProxies
    let metrics: ServerMetrics
    let logger: Logger
    /// The other instances' PostgreSQL, when configured.
    let cluster: (any ClusterMembership)?

    /// Where the page's static files are: `BASE/static/v/VERSION`, a prefix that changes with their content.
    var staticBase: String { "\(configuration.basePath)/static/v/\(staticFiles.version)" }

    /// The events a new stream starts with: the list's status, the rows near the viewer's viewport
    /// (`ViewerSession.snapshotRows`: a stream costs the same at any list length) with the list's
    /// length and state counts, this viewer's queues and the totals (a lab lane's viewer: its own pipeline's).
    func snapshot(for session: ViewerSession) -> [EventOutbox.Payload] {
        let lane = session.ownPipeline
        let source = lane.map { EventPayloads.Source(status: "ready", count: $0.entries.count) } ?? library.source
        var payloads: [EventOutbox.Payload] = [.init(name: .source, data: EventPayloads.json(source))]
        guard let pipeline = lane ?? library.pipeline else { return payloads }
        let strategy = session.strategy(default: configuration.strategy)
        let rows = session.snapshotRows(rowCount: pipeline.entries.count).map(pipeline.records(in:)) ?? []
        payloads.append(.init(name: .snapshot, data: EventPayloads.json(EventPayloads.Snapshot(
            photos: rows.map { EventPayloads.Photo(index: $0.index, state: $0.state, record: $0) },
            count: pipeline.entries.count, states: pipeline.stateCounts,
            strategy: strategy.name, prefetch: strategy.prefetchMarginForDisplay))))
        if let queues = session.currentQueues() {
            payloads.append(.init(name: .queues, data: EventPayloads.json(queues)))
        }
        let totals = lane.map(EventPayloads.Stats.init(lane:)) ?? stats(of: pipeline)
        payloads.append(.init(name: .stats, data: EventPayloads.json(totals)))
        return payloads
    }

    /// The pipeline `session` drives: its lab lane's, or the server's once the list is loaded.
    func pipeline(for session: ViewerSession) throws(APIError) -> PhotoPipeline {
        if let lane = session.ownPipeline { return lane }
        return try loadedPipeline()
    }

    /// The server totals, the same for the snapshot, `GET /api/stats` and the tick.
    var totals: ServerTotals { ServerTotals(viewers: viewers, cluster: cluster) }

    /// The server totals now.
    func stats(of pipeline: PhotoPipeline) -> EventPayloads.Stats {
        totals.stats(of: pipeline)
    }

    /// The pipeline once the photo list is loaded, or a 409 saying where loading stands.
    func loadedPipeline() throws(APIError) -> PhotoPipeline {
        guard let pipeline = library.pipeline else {
            throw .conflict("the photo list is not loaded yet (\(library.source.status))")
        }
        return pipeline
    }

    /// A photo index from a route's `:index`, or a 400 saying what it was instead.
    static func photoIndex(_ text: String?) throws(APIError) -> Int {
        guard let text, let index = Int(text) else {
            throw .badRequest("photo index must be a whole number, got \(text ?? "nothing")")
        }
        return index
    }

    /// The viewer `id` names, or a 404 saying so.
    func session(_ id: String?) throws(APIError) -> ViewerSession {
        guard let id, !id.isEmpty else { throw .badRequest("missing viewer id") }
        guard let session = viewers.session(ViewerID(id)) ?? labs.session(ViewerID(id)) else {
            throw .notFound("unknown viewer \(id): create one with POST \(configuration.basePath)/api/viewers or reload the page")
        }
        return session
    }

    /// A new viewer for the client of `request`, following `strategy` (nil: the server's default):
    /// a 429 when that client made too many lately, a 503 when the server is full.
    func newViewer(for request: Request, peer: SocketAddress?, strategy: SchedulingStrategy? = nil) throws(APIError) -> ViewerSession {
        try admitNewViewer(for: request, peer: peer)
        return try newViewer(strategy: strategy)
    }

    /// Counts a new viewer (a page, a lab) against its client's limit: a 429 when it made too many lately.
    func admitNewViewer(for request: Request, peer: SocketAddress?) throws(APIError) {
        let client = ClientAddress.of(peer: peer, forwardedFor: request.headers[.xForwardedFor], trusted: trustedProxies)
        if let seconds = rateLimiter.admit(client) {
            throw .tooManyRequests(
                "too many new viewers from \(client) (at most \(rateLimiter.perMinute) a minute); try again in \(seconds) s",
                retryAfter: seconds)
        }
    }

    /// A new viewer, or a 503 when the server is full.
    func newViewer(strategy: SchedulingStrategy? = nil) throws(APIError) -> ViewerSession {
        guard let session = viewers.create() else {
            logger.warning("viewer refused: at the maximum of \(viewers.maxViewers) viewers")
            throw .unavailable("the server has its maximum of \(viewers.maxViewers) viewers; try again shortly")
        }
        logger.debug("viewer joined", metadata: ["viewer": "\(session.id)", "viewers": "\(viewers.count)"])
        session.choose(strategy)
        if let pipeline = library.pipeline {
            _ = session.controller(on: pipeline, strategy: configuration.strategy)
        }
        return session
    }
}
