import FlyingFox
import Foundation

/// `GET /healthz`: 200 once the photo list is loaded, 503 while it loads or when it failed.
struct HealthHandler: HTTPHandler {
    let context: AppContext

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let source = context.library.source
        return .json(source, status: source.status == "ready" ? .ok : .serviceUnavailable)
    }
}

/// `GET /metrics`: Prometheus text exposition.
struct MetricsHandler: HTTPHandler {
    let context: AppContext

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let text = context.metrics.exposition(stats: context.library.pipeline?.stats, viewers: context.viewers.count)
        return HTTPResponse(
            statusCode: .ok,
            headers: HTTPHeaders([.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"]),
            body: Data(text.utf8))
    }
}
