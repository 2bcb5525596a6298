import FlyingFox
import Foundation

/// `GET /`: the page, rendered from `Templates/index.mustache`. Each load is a new viewer.
struct PageHandler: HTTPHandler {
    let context: AppContext

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let session = try context.newViewer()
        let configuration = context.configuration
        let values: [String: Any] = [
            "viewer": session.id.rawValue,
            "title": "ClassicPhotos Live",
            "basePath": configuration.basePath,
            "strategy": configuration.strategy.name,
            "prefetch": configuration.strategy.prefetchMarginForDisplay,
            "rowHeight": 80,
            "version": context.version,
        ]
        guard let html = context.templates.render(values, withTemplate: "index") else {
            return HTTPResponse(statusCode: .internalServerError, headers: [.contentType: "text/plain"], body: Data("template index.mustache is missing\n".utf8))
        }
        return HTTPResponse(
            statusCode: .ok,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: Data(html.utf8))
    }
}
