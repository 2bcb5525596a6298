import FlyingFox

/// `POST /api/viewers`: a viewer for a client that is not the page.
struct ViewersHandler: HTTPHandler {
    let context: AppContext

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let session = try context.newViewer()
        return .json(EventPayloads.Viewer(viewer: session.id.rawValue), status: .created)
    }
}
