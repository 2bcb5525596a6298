import Foundation
import Hummingbird
import PhotoPipeline

/// `GET /`: the page, rendered from `Templates/index.mustache`. Each load is a new viewer
/// (a `HEAD` is not: it gets the same headers without making one).
struct PageHandler: Sendable {
    let context: AppContext

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let viewer = request.method == .head
            ? ViewerID.random().rawValue
            : try context.newViewer(for: request, peer: requestContext.peer).id.rawValue
        let configuration = context.configuration
        let values: [String: Any] = [
            "viewer": viewer,
            "title": "ClassicPhotos Live",
            "basePath": configuration.basePath,
            "staticBase": "\(configuration.basePath)/static/v/\(context.staticFiles.version)",
            "strategy": configuration.strategy.name,
            "prefetch": configuration.strategy.prefetchMarginForDisplay,
            "rowHeight": 80,
            "version": context.staticFiles.version,
        ]
        guard let html = context.templates.render(values, withTemplate: "index") else {
            throw APIError.internal("template index.mustache is missing")
        }
        return Compression.response(
            Data(html.utf8), contentType: "text/html; charset=utf-8", headers: [.cacheControl: "no-store"], for: request)
    }
}
