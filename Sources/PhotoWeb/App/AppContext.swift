import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Mustache
import PhotoPipeline
import PhotoTransport

/// What every handler shares: the list's channel, the viewers, the labs, the templates and the settings.
struct AppContext: Sendable {
    let configuration: WebConfiguration
    /// The server's photo list, its pipeline and its viewers.
    let list: PhotoChannel
    /// Every viewer, the list's and the lab lanes'.
    let viewers: ViewerRegistry
    /// The labs running now: each server lane a channel of its own.
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
    /// The built-in origin: the lab's networks and the browser lane's photos.
    let origin: any OriginServing
    /// Presenters' scrolls and the viewers following them.
    let presentations: Presentations
    /// `GET /api/photos`'s answers, made once per list version, for the route and the event loop.
    let photoList: PhotoListAnswers
    /// The rows each client's window showed at its last stop: its next page load starts that many.
    let firstScreens = FirstScreenSizes()

    /// Where the page's static files are: `BASE/static/v/VERSION`, a prefix that changes with their content.
    var staticBase: String { "\(configuration.basePath)/static/v/\(staticFiles.version)" }

    /// The server's photo list: loading, ready with its pipeline, or failed.
    var library: PhotoLibrary { list.library }

    /// The events a new stream of `session` starts with, from its channel.
    func snapshot(for session: ViewerSession) -> [EventOutbox.Payload] {
        session.channel.snapshot(for: session, defaultStrategy: configuration.strategy)
            + presentations.snapshot(for: session)
    }

    /// The server totals now, the same for the snapshot, `GET /api/stats` and the tick.
    func stats(of pipeline: PhotoPipeline) -> EventPayloads.Stats {
        list.stats(of: pipeline)
    }

    /// The list's pipeline once it is loaded, or a 409 saying where loading stands.
    func loadedPipeline() throws(APIError) -> PhotoPipeline {
        try list.loadedPipeline()
    }

    /// A photo index from a route's `:index`, or a 400 saying what it was instead.
    static func photoIndex(_ text: String?) throws(APIError) -> Int {
        guard let text, let index = Int(text) else {
            throw .badRequest("photo index must be a whole number, got \(text ?? "nothing")")
        }
        return index
    }

    /// The channel whose images a request asks for: a lab lane's when it names its viewer
    /// (`?viewer=ID`, a 404 for an unknown one), else the list's.
    func imageChannel(viewer id: String?) throws(APIError) -> PhotoChannel {
        try id.map { id throws(APIError) in try session(id).channel } ?? list
    }

    /// The viewer `id` names, or a 404 saying so.
    func session(_ id: String?) throws(APIError) -> ViewerSession {
        guard let id, !id.isEmpty else { throw .badRequest("missing viewer id") }
        guard let session = viewers.session(ViewerID(id)) else {
            throw .notFound("unknown viewer \(id): create one with POST \(configuration.basePath)/api/viewers or reload the page")
        }
        return session
    }

    /// A new viewer for the client of `request`, following `strategy` (nil: the server's default):
    /// a 429 when that client made too many lately, a 503 when the server is full.
    func newViewer(for request: Request, peer: SocketAddress?, strategy: SchedulingStrategy? = nil) throws(APIError) -> ViewerSession {
        let client = try admitNewViewer(for: request, peer: peer)
        return try newViewer(strategy: strategy, client: client)
    }

    /// Counts a new viewer (a page, a lab) against its client's limit: a 429 when it made too many
    /// lately. Returns the client's key for its per-client places (`ClientAddress.group`).
    @discardableResult
    func admitNewViewer(for request: Request, peer: SocketAddress?) throws(APIError) -> String {
        try admitNewViewer(fields: request.headers, peer: peer)
    }

    /// `admitNewViewer(for:peer:)` for a request with these fields.
    @discardableResult
    func admitNewViewer(fields: HTTPFields, peer: SocketAddress?) throws(APIError) -> String {
        let client = clientAddress(of: fields, peer: peer)
        if let seconds = rateLimiter.admit(client) {
            throw .tooManyRequests(
                "too many new viewers from \(client) (at most \(rateLimiter.perMinute) a minute); try again in \(seconds) s",
                retryAfter: seconds)
        }
        return ClientAddress.group(client)
    }

    /// The client `request` comes from: its peer, or what a trusted proxy says it forwarded.
    func clientAddress(of request: Request, peer: SocketAddress?) -> String {
        clientAddress(of: request.headers, peer: peer)
    }

    /// The client a request with these fields comes from (`clientAddress(of:peer:)`).
    func clientAddress(of fields: HTTPFields, peer: SocketAddress?) -> String {
        ClientAddress.of(peer: peer, forwardedFor: fields[.xForwardedFor], trusted: trustedProxies)
    }

    /// A new viewer of the list, or a 503 when the server is full.
    /// With `client`, the viewer holds one of that client's places (`ViewerRegistry.places`).
    /// `drives`: it gets its controller now (an eager one asks for every row as it is made); a
    /// follower does not, and gets one at its first report of its own.
    func newViewer(strategy: SchedulingStrategy? = nil, client: String? = nil, drives: Bool = true) throws(APIError) -> ViewerSession {
        let session: ViewerSession
        do throws(APIError) {
            if let client {
                session = try viewers.create(in: list, for: client)
            } else {
                guard let created = viewers.create(in: list) else { throw viewers.refusal }
                session = created
            }
        } catch {
            logger.warning("viewer refused", metadata: ["reason": "\(error)"])
            throw error
        }
        logger.debug("viewer joined", metadata: ["viewer": "\(session.id)", "viewers": "\(viewers.count(in: list))"])
        session.choose(strategy)
        if drives, let pipeline = library.pipeline {
            _ = session.controller(on: pipeline, strategy: configuration.strategy)
        }
        return session
    }
}
