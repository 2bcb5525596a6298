import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOFoundationEssentialsCompat

/// Wraps every route: the one place errors become HTTP. Hummingbird's own (no route, a body over
/// its limit) become an `APIError`; any `HTTPResponseError` (an `APIError`, a page's own answer such
/// as the busy lab) becomes its response; anything else is a fault of ours: logged, counted,
/// answered as JSON 500. Every answer is counted by route and
/// status for `/metrics`.
struct RouteMiddleware: RouterMiddleware {
    typealias Context = PhotoRequestContext

    let metrics: ServerMetrics
    let logger: Logger
    let maxBodyBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response: Response
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
            metrics.recordRequest(route: "malformed", status: 400)
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            metrics.recordFault()
            response = APIError.internal("internal error: \(type(of: error))").response
        }
        let route = context.endpointPath.map { "\(request.method) \($0)" } ?? "unmatched"
        metrics.recordRequest(route: route, status: response.status.code)
        return response
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
