import Foundation
import Hummingbird
import PhotoPipeline

/// `GET /`: the page, rendered from `Templates/index.mustache`. Each load is a new viewer
/// (a `HEAD` is not: it gets the same headers without making one).
///
/// Everything in the page but the viewer's id and the first screen's preloads is the same for the
/// whole run, so the template is rendered once, at start, around markers; a request only puts those in.
struct PageHandler: Sendable {
    let context: AppContext
    /// The rendered page, split where the preloads go, then each part where the viewer's id goes.
    private let parts: (head: [String], body: [String])

    init(context: AppContext) throws(APIError) {
        self.context = context
        let marker = "viewer-id-0f3c9a"
        let preloadMarker = "<!--preloads-0f3c9a-->"
        let configuration = context.configuration
        let values: [String: Any] = [
            "viewer": marker,
            "title": "ClassicPhotos Live",
            "basePath": configuration.basePath,
            "staticBase": "\(configuration.basePath)/static/v/\(context.staticFiles.version)",
            "strategy": configuration.strategy.name,
            "prefetch": configuration.strategy.prefetchMarginForDisplay,
            "rowHeight": 80,
            "preloads": preloadMarker,
        ]
        guard let html = context.templates.render(values, withTemplate: "index") else {
            throw .internal("template index.mustache is missing")
        }
        let halves = html.components(separatedBy: preloadMarker)
        guard halves.count == 2 else { throw .internal("template index.mustache must place {{{preloads}}} once") }
        parts = (halves[0].components(separatedBy: marker), halves[1].components(separatedBy: marker))
    }

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let viewer: String
        if request.method == .head {
            viewer = ViewerID.random().rawValue
        } else {
            let session = try context.newViewer(for: request, peer: requestContext.peer, strategy: Self.strategy(of: request))
            context.startFirstScreen(of: session, row: request.queryValue("row"))
            viewer = session.id.rawValue
        }
        let html = parts.head.joined(separator: viewer) + preloads(for: request) + parts.body.joined(separator: viewer)
        return Compression.response(
            Data(html.utf8), contentType: "text/html; charset=utf-8",
            headers: context.stickyHeaders([.cacheControl: "no-store"]), for: request)
    }

    /// `<link rel=preload>` for the sepia thumbnails of the first screen (from `?row=N`, 1-based, as
    /// the page reads it) that are ready now: the browser fetches them while it loads the page's
    /// modules, instead of after the event stream's snapshot has said which rows are done. The page's
    /// image loader asks for the same URLs, which the browser then answers from its preload cache.
    func preloads(for request: Request) -> String {
        guard let pipeline = context.library.pipeline, !pipeline.records.isEmpty else { return "" }
        let count = pipeline.records.count
        let first = min(count - 1, max(0, (request.queryValue("row").flatMap { Int($0) } ?? 1) - 1))
        let base = context.configuration.basePath
        return (first..<min(count, first + AppContext.firstScreenRows))
            .filter { pipeline.records[$0].state == .filtered }
            .map { "<link rel=\"preload\" as=\"image\" fetchpriority=\"high\" href=\"\(base)/photos/\($0)/thumbnail\">\n" }
            .joined()
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
        return try? ViewportHandler.strategy(in: fields)
    }
}
