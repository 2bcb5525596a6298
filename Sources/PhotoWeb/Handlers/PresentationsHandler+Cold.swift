import Foundation
import Hummingbird
import Logging
import PhotoPipeline

extension PresentationsHandler {
    /// `POST /api/presentations/CODE/cold-starts` `{"viewer": ID}`: the presenter starts the demo cold
    /// for everyone (`PhotoPipeline.startCold`): the list's caches, memory and disk, are emptied, work
    /// in flight is cancelled, and the presenter's and followers' pages start over from the presenter's
    /// rows. `200 {"rows", "followers", "coldStarts"}`; `404` unless the viewer presents `CODE` (a follow
    /// code is no viewer); `409` while other viewers of the list do not follow it (they would lose their
    /// work), or on a cluster's shared results; `429` within `coldStartInterval` of the last cold start.
    func startCold(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let code = try Self.code(requestContext.parameters.get("code"))
        let session = try await viewer(in: request)
        let pipeline = try context.loadedPipeline()
        let (presenter, followers) = try context.presentations.coldStartAudience(code, by: session.id)
        let bystanders = Presentations.bystanders(
            among: context.viewers.all(in: context.list), presenter: presenter.id, followers: followers)
        guard bystanders.isEmpty else {
            throw APIError.conflict(
                "\(bystanders.count) other viewer\(bystanders.count == 1 ? " is" : "s are") looking at the list without following this "
                + "presentation: starting cold would take away their work. Ask them to open the follow link, or wait until they leave")
        }
        guard pipeline.canStartCold else {
            throw APIError.conflict("the list's results are shared with other instances (a cluster): it cannot start cold alone")
        }
        let news = try context.presentations.recordColdStart(code, by: session.id)
        let rows = try await Blocking.run { pipeline.startCold() ?? 0 }
        // The presenter's rows load again at once; its page reports them again too when it hears the news.
        if let controller = presenter.existingController, let visible = controller.visibleRows {
            controller.loadImagesForOnscreenRows(visible)
        }
        news.deliver(on: nil)
        context.logger.info("list started cold", metadata: ["viewer": "\(session.id)", "rows": "\(rows)", "followers": "\(followers.count)"])
        let body = ColdStarted(rows: rows, followers: followers.count, coldStarts: news.presenterUpdate?.coldStarts ?? 0)
        return Response.json(body, status: .ok)
    }

    /// `200` of `POST /api/presentations/CODE/cold-starts`.
    struct ColdStarted: Encodable {
        /// Rows whose state went back at once (rows still being worked on follow as their work ends).
        var rows: Int
        var followers: Int
        /// The presentation's cold starts so far.
        var coldStarts: Int
    }
}
