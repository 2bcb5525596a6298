import Foundation
import Hummingbird
import PhotoPipeline

/// Every error the web layer answers with, as hummingbird's `HTTPResponseError`. The HTTP status is
/// chosen here and nowhere else; the body is always `{"error": "reason"}`.
enum APIError: HTTPResponseError, Sendable, Equatable, CustomStringConvertible {
    /// The request is malformed (bad JSON, a missing or mistyped field).
    case badRequest(String)
    /// The thing asked for does not exist (an unknown viewer, a photo not there yet).
    case notFound(String)
    /// The route exists but not for this method.
    case methodNotAllowed(String)
    /// The request is well-formed but cannot apply now (the list is still loading).
    case conflict(String)
    /// Well-formed but out of range (rows past the end of the list).
    case unprocessable(String)
    /// The body is larger than the server accepts.
    case payloadTooLarge(limit: Int)
    /// This client asked for too much too fast; it may try again after `retryAfter` seconds.
    case tooManyRequests(String, retryAfter: Int)
    /// The server is at its capacity (too many viewers) or not ready.
    case unavailable(String)
    /// A fault of ours (logged and counted where it is caught).
    case `internal`(String)

    var description: String {
        switch self {
        case .badRequest(let reason), .notFound(let reason), .methodNotAllowed(let reason), .conflict(let reason),
             .unprocessable(let reason), .unavailable(let reason), .tooManyRequests(let reason, _), .internal(let reason):
            reason
        case .payloadTooLarge(let limit):
            "request body is larger than \(limit) bytes"
        }
    }

    var status: HTTPResponse.Status {
        switch self {
        case .badRequest: .badRequest
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .conflict: .conflict
        case .unprocessable: .unprocessableContent
        case .payloadTooLarge: .contentTooLarge
        case .tooManyRequests: .tooManyRequests
        case .unavailable: .serviceUnavailable
        case .internal: .internalServerError
        }
    }

    /// The pipeline's errors, in HTTP terms.
    init(_ error: PipelineError) {
        switch error {
        case .noSuchPhoto, .notAvailable: self = .notFound(error.description)
        case .renderFailed: self = .unprocessable(error.description)
        case .notFailed: self = .conflict(error.description)
        }
    }

    /// The response, as hummingbird asks an `HTTPResponseError` for it.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        response
    }

    /// The response, JSON `{"error": reason}`, never cached.
    var response: Response {
        var response = Response.json(EventPayloads.Failure(error: description), status: status)
        switch self {
        case .unavailable: response.headers[.retryAfter] = "10"
        case .tooManyRequests(_, let seconds): response.headers[.retryAfter] = String(seconds)
        default: break
        }
        return response
    }
}
