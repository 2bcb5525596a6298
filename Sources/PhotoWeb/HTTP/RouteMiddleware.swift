import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOFoundationEssentialsCompat

/// Wraps every route: the one place errors become HTTP. Hummingbird's own (no route, a body over
/// its limit) become an `APIError`; any `HTTPResponseError` (an `APIError`, a page's own answer such
/// as the busy lab) becomes its response; anything else is a fault of ours: logged, counted,
/// answered as JSON 500. Every answer is counted and timed by route and status for `/metrics`
/// (`AnswerMeter`): from the request taken to the response made, or, for a body made as it is
/// written (a batch of thumbnails), to its end; an event stream to its head (its body is its life).
struct RouteMiddleware: RouterMiddleware {
    typealias Context = PhotoRequestContext

    let metrics: ServerMetrics
    let logger: Logger
    let maxBodyBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var response: Response
        do {
            // A body is read whole (within the limit) before any handler acts, so one with broken
            // framing is refused before it can make a viewer or change anything.
            var request = request
            if request.method == .post {
                request.body = RequestBody(buffer: ByteBuffer(data: try await request.body(limit: maxBodyBytes)))
            }
            response = try await next(request, context)
        } catch is NIOTooManyBytesError {
            // A body with no Content-Length (chunked, or any HTTP/2 body) found too long while read.
            response = APIError.payloadTooLarge(limit: maxBodyBytes).response
        } catch let error as HTTPError {
            response = translate(error, request: request).response
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        } catch let error as HTTPParserError {
            // Malformed framing in the body: Hummingbird answers 400 and closes the connection,
            // so nothing after it is read as another request.
            metrics.answerMeter(route: "malformed", status: 400).record(since: start)
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            metrics.recordFault()
            response = APIError.internal("internal error: \(type(of: error))").response
        }
        let route = context.endpointPath.map { AnswerMeter.label(request.method, $0) } ?? "unmatched"
        let meter = metrics.answerMeter(route: route, status: response.status.code)
        guard response.body.contentLength == nil, !Self.isEventStream(response) else {
            meter.record(since: start)
            return response
        }
        let body = response.body
        response.body = ResponseBody { writer in
            defer { meter.record(since: start) }
            try await body.write(writer)
        }
        return response
    }

    /// Whether `response` is a stream of server-sent events.
    static func isEventStream(_ response: Response) -> Bool {
        response.headers[.contentType]?.hasPrefix("text/event-stream") == true
    }

    /// Hummingbird's own error as ours, its status kept (a body over the limit stays a 413).
    func translate(_ error: HTTPError, request: Request) -> APIError {
        switch error.status {
        case .notFound: .notFound("no route for \(request.method) \(request.uri.path)")
        case .methodNotAllowed: .methodNotAllowed("\(request.method) is not allowed on \(request.uri.path)")
        case .contentTooLarge: .payloadTooLarge(limit: maxBodyBytes)
        case .badRequest: .badRequest(error.body ?? "bad request")
        default: .unavailable(error.body ?? error.status.reasonPhrase)
        }
    }
}
