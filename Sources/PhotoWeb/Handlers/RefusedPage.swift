import Foundation
import Hummingbird
import Mustache

/// A page load the server refused (a client's new-viewer limit, the server full) answered as a page a
/// person can read: the reason, when the browser will try again (`Retry-After`, and a refresh at that
/// time), and a link to try now; a follow link that names no running presentation, a page saying so.
/// Clients that do not ask for HTML get the API's JSON error.
struct RefusedPage: HTTPResponseError {
    let error: APIError
    let html: Data

    var status: HTTPResponse.Status { error.status }

    /// The refusal as HTML when `request` accepts it, `nil` when the client wants the API's JSON or the
    /// error is not a refusal of the visit (a bad request stays a JSON 4xx).
    init?(_ error: APIError, for request: Request, context: AppContext) {
        guard Self.wantsHTML(request) else { return nil }
        var values: [String: Any] = ["staticBase": context.staticBase, "reason": error.description]
        if let seconds = Self.retryAfter(of: error) {
            values["title"] = "ClassicPhotos Live: try again soon"
            values["heading"] = error.status == .serviceUnavailable ? "The server is full right now" : "Too many visits from your address"
            values["retryAfter"] = seconds
            values["retryAfterWords"] = seconds == 1 ? "1 second" : "\(seconds) seconds"
            // The path and query only: an absolute-form request line must not make the link point elsewhere.
            values["retryURL"] = request.uri.query.map { "\(request.uri.path)?\($0)" } ?? request.uri.path
        } else if case .notFound = error, request.queryValue("follow") != nil {
            // A follow link whose presentation ended, or that names none: never someone else's list.
            values["title"] = "ClassicPhotos Live: no presentation to follow"
            values["heading"] = error.description.contains("ended") ? "This presentation has ended" : "No such presentation"
            values["listURL"] = "\(context.configuration.basePath)/"
        } else {
            return nil
        }
        guard let page = context.templates.render(values, withTemplate: "refused") else { return nil }
        self.error = error
        self.html = Data(page.utf8)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = Compression.response(html, contentType: "text/html; charset=utf-8", headers: [.cacheControl: "no-store"], for: request)
        response.status = status
        response.headers[.retryAfter] = error.response.headers[.retryAfter]
        return response
    }

    /// Seconds until a refused visit may try again, or `nil` when `error` is not a refusal of the visit.
    private static func retryAfter(of error: APIError) -> Int? {
        switch error {
        case .tooManyRequests(_, let seconds): max(1, seconds)
        case .unavailable: Int(error.response.headers[.retryAfter] ?? "") ?? 10
        default: nil
        }
    }

    /// Whether the client named HTML among what it accepts (a browser's navigation always does).
    private static func wantsHTML(_ request: Request) -> Bool {
        request.headers[values: .accept].contains { $0.lowercased().contains("text/html") }
    }
}
