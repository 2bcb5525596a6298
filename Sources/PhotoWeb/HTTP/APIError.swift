import FlyingFox
import Foundation
import PhotoPipeline

/// Every error the web layer answers with. The HTTP status is chosen here and nowhere else;
/// the body is always `{"error": "reason"}`.
enum APIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request is malformed (bad JSON, a missing or mistyped field).
    case badRequest(String)
    /// The thing asked for does not exist (an unknown viewer, a photo not there yet).
    case notFound(String)
    /// The request is well-formed but cannot apply now (the list is still loading).
    case conflict(String)
    /// Well-formed but out of range (rows past the end of the list).
    case unprocessable(String)
    /// The body is larger than the server accepts.
    case payloadTooLarge(limit: Int)
    /// The server is at its capacity (too many viewers).
    case unavailable(String)

    var description: String {
        switch self {
        case .badRequest(let reason), .notFound(let reason), .conflict(let reason),
             .unprocessable(let reason), .unavailable(let reason):
            reason
        case .payloadTooLarge(let limit):
            "request body is larger than \(limit) bytes"
        }
    }

    var status: HTTPStatusCode {
        switch self {
        case .badRequest: .badRequest
        case .notFound: .notFound
        case .conflict: .conflict
        case .unprocessable: .unprocessableContent
        case .payloadTooLarge: .payloadTooLarge
        case .unavailable: .serviceUnavailable
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

    var response: HTTPResponse {
        var headers: HTTPHeaders = [.contentType: "application/json", .cacheControl: "no-store"]
        if case .unavailable = self { headers[HTTPHeader("Retry-After")] = "10" }
        return HTTPResponse(statusCode: status, headers: headers, body: EventPayloads.json(EventPayloads.Failure(error: description)))
    }
}

/// Wraps every route: turns a thrown `APIError` into its response and counts the answer by route
/// and status for `/metrics`.
struct RouteHandler: HTTPHandler {
    let route: String
    let handler: any HTTPHandler
    let metrics: ServerMetrics

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response: HTTPResponse
        do {
            response = try await handler.handleRequest(request)
        } catch let error as APIError {
            response = error.response
        }
        metrics.recordRequest(route: route, status: response.statusCode.code)
        return response
    }
}
