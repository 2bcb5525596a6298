import Foundation
import Logging
import Hummingbird
import PhotoPipeline

/// Presenting (`Presentations`): `POST /api/presentations` `{"viewer": ID}` starts presenting that
/// viewer's scroll (`201 {"code", "follow", "followers"}`; the same presentation again for a viewer that
/// presents already); `DELETE /api/presentations/CODE?viewer=ID` ends it, by its presenter only;
/// `POST /api/presentations/CODE/followers` `{"viewer": ID}` makes a viewer follow it (again, after it
/// scrolled away). A follow code only ever lets a viewer watch: nothing here or elsewhere drives,
/// reports for or ends anything by it.
struct PresentationsHandler: Sendable {
    let context: AppContext

    /// `POST /api/presentations`.
    func start(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let session = try await viewer(in: request)
        let (code, news) = try context.presentations.start(by: session)
        news.deliver(on: context.library.pipeline)
        context.logger.info("presentation started", metadata: ["viewer": "\(session.id)"])
        let body = Started(code: code.rawValue, follow: "\(context.configuration.basePath)/?follow=\(code)", followers: news.presenterUpdate?.followers ?? 0)
        return Response.json(body, status: .created)
    }

    /// `DELETE /api/presentations/CODE?viewer=ID`.
    func end(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let code = try Self.code(requestContext.parameters.get("code"))
        let viewer = try context.session(request.queryValue("viewer"))
        let news = try context.presentations.end(code, by: viewer.id)
        news.deliver(on: nil)
        return .empty(.noContent, headers: [.cacheControl: "no-store"])
    }

    /// `POST /api/presentations/CODE/followers`.
    func follow(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let code = try Self.code(requestContext.parameters.get("code"))
        let session = try await viewer(in: request)
        let news = try context.presentations.follow(code, by: session)
        news.deliver(on: context.library.pipeline)
        return Response.json(news.followerUpdate, status: .ok)
    }

    /// The viewer a body `{"viewer": ID}` names, or the 4xx saying what is wrong.
    func viewer(in request: Request) async throws -> ViewerSession {
        let body = try await request.body(limit: context.configuration.maxRequestBodyBytes)
        guard let fields = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            throw APIError.badRequest("body must be a JSON object {\"viewer\": ID}")
        }
        let session = try context.session(try RequestFields.field("viewer", String.self, in: fields))
        guard session.channel === context.list else {
            throw APIError.conflict("a lab lane's viewer cannot present or follow: the list's viewers can")
        }
        return session
    }

    /// A follow code from the path, or a 404 (a malformed code names no presentation).
    static func code(_ text: String?) throws(APIError) -> FollowCode {
        guard let text, let code = FollowCode(parsing: text) else {
            throw .notFound("no such presentation: a follow code is 32 hex digits")
        }
        return code
    }

    /// `201` of `POST /api/presentations`.
    struct Started: Encodable {
        var code: String
        /// The link to share: the page, following this presentation.
        var follow: String
        var followers: Int
    }
}
