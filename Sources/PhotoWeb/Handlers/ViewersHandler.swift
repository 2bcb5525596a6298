import Hummingbird

/// `POST /api/viewers`: a viewer for a client that is not the page.
struct ViewersHandler: Sendable {
    let context: AppContext

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let session = try context.newViewer(for: request, peer: requestContext.peer)
        return .json(EventPayloads.Viewer(viewer: session.id.rawValue), status: .created)
    }
}
