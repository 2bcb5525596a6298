import Foundation
import Hummingbird
import PhotoPipeline

/// `POST /api/viewers`: a viewer for a client that is not the page; `DELETE /api/viewers/ID`: a
/// viewer that leaves (the page, as it closes), gone at once rather than when its stream times out.
struct ViewersHandler: Sendable {
    let context: AppContext

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        // An optional body {"strategy", "prefetch"}: the tab's own strategy from the start.
        let body = try await request.body(limit: context.configuration.maxRequestBodyBytes)
        var strategy: SchedulingStrategy?
        if !body.isEmpty {
            guard let fields = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
                throw APIError.badRequest("body must be empty or a JSON object {\"strategy\", \"prefetch\"}")
            }
            strategy = try RequestFields.strategy(in: fields)
        }
        let session = try context.newViewer(for: request, peer: requestContext.peer, strategy: strategy)
        var response = Response.json(EventPayloads.Viewer(viewer: session.id.rawValue), status: .created)
        response.headers = context.stickyHeaders(response.headers)
        return response
    }

    /// `DELETE /api/viewers/ID`: `204`, its work only it wanted cancelled; `404` for no such viewer.
    func leave(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let id = requestContext.parameters.get("id") ?? ""
        guard let session = context.viewers.remove(ViewerID(id)) else {
            throw APIError.notFound("unknown viewer \(id): it has left already")
        }
        session.close()
        return .empty(.noContent, headers: [.cacheControl: "no-store"])
    }
}
