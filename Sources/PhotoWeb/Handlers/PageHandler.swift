import Foundation
import HTTPTypes
import Hummingbird
import PhotoPipeline
import Mustache
import PhotoTransport

/// `GET /`: the page (`PageTemplate`). Each load is a new viewer (a `HEAD` is not: it gets the same
/// headers without making one). A load the server refuses (too many new viewers from one client, the
/// server full) gets a page saying why and when it tries again. A plain load of a loaded list whose
/// first screen is kept is answered on the event loop instead (`ReadyPage`), as this would answer it.
struct PageHandler: Sendable {
    let context: AppContext
    let template: PageTemplate
    /// First screens made, by their rows, for the list's current version: a crowd's page loads while
    /// the top rows stand still cost no rendering.
    private let screens = ListVersionCache<Range<Int>, FirstScreen.Filling>(capacity: 64)

    init(context: AppContext) throws(APIError) {
        self.context = context
        template = try PageTemplate(context: context)
    }

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        if let follow = request.queryValue("follow") {
            return try follower(of: follow, request, requestContext)
        }
        // The rows as they stand before this load starts any of them, so a HEAD gets the GET's length.
        let screen = firstScreen(row: request.queryValue("row"))
        let viewer: String
        if request.method == .head {
            viewer = ViewerID.random().rawValue
        } else {
            let session: ViewerSession
            do throws(APIError) {
                session = try context.newViewer(for: request, peer: requestContext.peer, strategy: Self.strategy(of: request))
            } catch {
                throw RefusedPage(error, for: request, context: context) ?? error
            }
            context.startFirstScreen(of: session, row: request.queryValue("row"))
            viewer = session.id.rawValue
        }
        return page(viewer: viewer, screen: screen, for: request)
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
            guard request.method != .head else { return page(viewer: ViewerID.random().rawValue, screen: screen, for: request) }
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
            return page(viewer: session.id.rawValue, screen: screen, for: request)
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

    /// The page's fields before `Content-Type` (the same for every load).
    var fields: HTTPFields { context.stickyHeaders([.cacheControl: "no-store"]) }

    /// The page for `viewer` with `screen` put in.
    private func page(viewer: String, screen: FirstScreen.Filling, for request: Request) -> Response {
        Compression.response(
            template.body(viewer: viewer, screen: screen), contentType: PageTemplate.contentType, headers: fields, for: request)
    }

    /// The strategy a shared link asks for (`?strategy=eager|visible|prefetch&prefetch=N`): the viewer
    /// is made with it, so its first rows are already scheduled that way. A value the API would refuse
    /// is ignored here (the page still opens, on the server's default, and its control says so).
    static func strategy(of request: Request) -> SchedulingStrategy? {
        guard let name = request.queryValue("strategy") else { return nil }
        var fields: [String: Any] = ["strategy": name]
        if let rows = request.queryValue("prefetch") {
            guard let margin = Int(rows) else { return nil }
            fields["prefetch"] = margin
        }
        return try? RequestFields.strategy(in: fields)
    }
}
