import Foundation
import Hummingbird
import PhotoPipeline

/// `GET /`: the page, rendered from `Templates/index.mustache`. Each load is a new viewer
/// (a `HEAD` is not: it gets the same headers without making one).
///
/// Everything in the page but the viewer's id is the same for the whole run, so the template is
/// rendered once, at start, around a marker; a request only puts its id in.
struct PageHandler: Sendable {
    let context: AppContext
    /// The rendered page, split where the viewer's id goes.
    private let parts: [String]

    init(context: AppContext) throws(APIError) {
        self.context = context
        let marker = "viewer-id-0f3c9a"
        let configuration = context.configuration
        let values: [String: Any] = [
            "viewer": marker,
            "title": "ClassicPhotos Live",
            "basePath": configuration.basePath,
            "staticBase": "\(configuration.basePath)/static/v/\(context.staticFiles.version)",
            "strategy": configuration.strategy.name,
            "prefetch": configuration.strategy.prefetchMarginForDisplay,
            "rowHeight": 80,
            "version": context.staticFiles.version,
        ]
        guard let html = context.templates.render(values, withTemplate: "index") else {
            throw .internal("template index.mustache is missing")
        }
        parts = html.components(separatedBy: marker)
    }

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let viewer = request.method == .head
            ? ViewerID.random().rawValue
            : try context.newViewer(for: request, peer: requestContext.peer).id.rawValue
        return Compression.response(
            Data(parts.joined(separator: viewer).utf8), contentType: "text/html; charset=utf-8",
            headers: context.stickyHeaders([.cacheControl: "no-store"]), for: request)
    }
}
