import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import PhotoPipeline
import Mustache
import NIOCore
import PhotoTransport

/// `GET /`: the page (`PageTemplate`). Each load is a new viewer (a `HEAD` is not: it gets the same
/// headers without making one). A load the server refuses (too many new viewers from one client, the
/// server full) gets a page saying why and when it tries again. A plain load of a loaded list whose
/// first screen is kept is answered on the event loop (`ready`), by the same `load`.
struct PageHandler: Sendable {
    /// The route, as the router and `ReadyRoutes` match it.
    static let path = "/"

    let context: AppContext
    let template: PageTemplate
    /// Fields every answer gets from the router's middleware (Strict-Transport-Security, nosniff).
    private let routerFields: HTTPFields
    /// First screens made, by their rows, for the list's current version: a crowd's page loads while
    /// the top rows stand still cost no rendering.
    private let screens = ListVersionCache<Range<Int>, FirstScreen.Filling>(capacity: 64)

    /// `routerFields`: what the router's middleware adds to every answer (`HTTPFields.routerMiddleware`).
    init(context: AppContext, routerFields: HTTPFields) throws(APIError) {
        (self.context, self.routerFields) = (context, routerFields)
        template = try PageTemplate(context: context)
    }

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        if let follow = request.queryValue("follow") {
            return try follower(of: follow, request, requestContext)
        }
        // The rows as they stand before this load starts any of them, so a HEAD gets the GET's length.
        let screen = firstScreen(row: request.queryValue("row"))
        do throws(APIError) {
            return Response(try load(request.head, peer: requestContext.peer, screen: screen, handingOn: false))
        } catch {
            throw RefusedPage(error, for: request, context: context) ?? error
        }
    }

    /// The answer on the event loop: a plain `GET /` (no query) of a loaded list whose top screen is
    /// kept for its version now (rendering rows is no work for an event loop); nil otherwise, and
    /// for a load the client's limits refuse, which the router decides again (its token given back,
    /// so it is counted once) and answers with its page saying why. Returns at once.
    func ready(_ request: HTTPRequest, on channel: any Channel) -> ReadyResponse? {
        guard request.method == .get, request.path == Self.path, let pipeline = context.library.pipeline,
              let screen = keptTopScreen(of: pipeline) else { return nil }
        return try? load(request, peer: channel.remoteAddress, screen: screen, handingOn: true)
    }

    /// The route's one answer to a load: a new viewer of the client (none for a HEAD), its first
    /// screen started, and the page for it with `screen` put in. `handingOn`: a refused load is
    /// decided again elsewhere, so a token its client's limit took is given back.
    private func load(_ request: HTTPRequest, peer: SocketAddress?, screen: FirstScreen.Filling, handingOn: Bool) throws(APIError) -> ReadyResponse {
        guard request.method != .head else { return page(viewer: ViewerID.random().rawValue, screen: screen, for: request) }
        let query = URI(request.path ?? "").queryParameters
        let client = try context.admitNewViewer(fields: request.headerFields, peer: peer)
        let session: ViewerSession
        do throws(APIError) {
            session = try context.newViewer(strategy: Self.strategy(in: query), client: client)
        } catch {
            if handingOn { context.rateLimiter.refund(client) }
            throw error
        }
        context.startFirstScreen(of: session, row: query.get("row"))
        return page(viewer: session.id.rawValue, screen: screen, for: request)
    }

    /// `GET /?follow=CODE`: the page of a new viewer following that presentation, opened where the
    /// presenter is. It starts no work of its own (the presenter's is everyone's). Within the
    /// presentation's room (`--room-size`) it is not counted as a new viewer of its address; past it,
    /// it is, as any page (`--viewers-per-minute`), and refused with a page saying why and when to
    /// try again. A code that names no running presentation gets a page saying so.
    private func follower(of text: String, _ request: Request, _ requestContext: PhotoRequestContext) throws -> Response {
        do throws(APIError) {
            let code = try PresentationsHandler.code(text)
            let position = context.presentations.position(of: code)
            let row = position.map { String($0.rows.lowerBound + 1) }
            let screen = firstScreen(row: row)
            guard request.method != .head else { return Response(page(viewer: ViewerID.random().rawValue, screen: screen, for: request.head)) }
            let presentations = context.presentations
            let address = context.clientAddress(of: request, peer: requestContext.peer)
            let inRoom = try presentations.roomIsOpen(code)
            if !inRoom, let seconds = context.rateLimiter.admit(address) {
                throw Presentations.roomFull(presentations.settings.roomSize, client: address, retryAfter: seconds)
            }
            let session = try context.newViewer(client: ClientAddress.group(address), drives: false)
            do throws(APIError) {
                try presentations.follow(code, by: session, inRoom: inRoom).deliver(on: context.library.pipeline)
            } catch {
                context.viewers.remove(session.id)?.close()
                throw error
            }
            return Response(page(viewer: session.id.rawValue, screen: screen, for: request.head))
        } catch {
            throw RefusedPage(error, for: request, context: context) ?? error
        }
    }

    /// The first screen from `row` as it stands, made once per list version and rows.
    private func firstScreen(row: String?) -> FirstScreen.Filling {
        let make = { (pipeline: PhotoPipeline?) in
            FirstScreen(pipeline: pipeline, row: row, templates: context.templates, basePath: context.configuration.basePath, staticBase: context.staticBase).filling
        }
        guard let pipeline = context.library.pipeline else { return make(nil) }
        // The version before the rows: what is kept under it is at least as new.
        let version = ListVersion(of: pipeline)
        let rows = FirstScreen.indices(from: row, count: pipeline.entries.count)
        return screens.value(for: rows, at: version) { make(pipeline) }
    }

    /// The first screen of the top of the list kept for `pipeline`'s version now, or nil (nothing is made).
    func keptTopScreen(of pipeline: PhotoPipeline) -> FirstScreen.Filling? {
        let version = ListVersion(of: pipeline)
        return screens.kept(for: FirstScreen.indices(from: nil, count: pipeline.entries.count), at: version)
    }

    /// The page for `viewer` with `screen` put in, its fields in the order they are sent: its own,
    /// `Content-Type`, `Vary` and `Content-Encoding` (gzipped when `request` accepts it and it pays),
    /// `Content-Length`, then the middleware's.
    private func page(viewer: String, screen: FirstScreen.Filling, for request: HTTPRequest) -> ReadyResponse {
        var fields = context.stickyHeaders([.cacheControl: "no-store"])
        fields[.contentType] = PageTemplate.contentType
        fields[.vary] = "Accept-Encoding"
        let body: ByteBuffer
        if Compression.accepted(by: request.headerFields), let gzipped = template.gzippedBody(viewer: viewer, screen: screen) {
            body = gzipped
            fields[.contentEncoding] = "gzip"
        } else {
            body = template.body(viewer: viewer, screen: screen)
        }
        fields[.contentLength] = String(body.readableBytes)
        fields.append(contentsOf: routerFields)
        return ReadyResponse(head: HTTPResponse(status: .ok, headerFields: fields), body: body)
    }

    /// The strategy a shared link asks for (`?strategy=eager|visible|prefetch&prefetch=N`): the viewer
    /// is made with it, so its first rows are already scheduled that way. A value the API would refuse
    /// is ignored here (the page still opens, on the server's default, and its control says so).
    static func strategy(in query: Parameters) -> SchedulingStrategy? {
        guard let name = query.get("strategy") else { return nil }
        var fields: [String: Any] = ["strategy": name]
        if let rows = query.get("prefetch") {
            guard let margin = Int(rows) else { return nil }
            fields["prefetch"] = margin
        }
        return try? RequestFields.strategy(in: fields)
    }
}
