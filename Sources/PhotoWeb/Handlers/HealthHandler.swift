import Foundation
import Hummingbird

/// `GET /healthz`: 200 once the photo list is loaded, 503 while it loads or when it failed.
struct HealthHandler: Sendable {
    let context: AppContext

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let source = context.library.source
        return .json(source, status: source.status == "ready" ? .ok : .serviceUnavailable)
    }
}

/// `GET /metrics`: Prometheus text exposition.
struct MetricsHandler: Sendable {
    let context: AppContext

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let text = context.metrics.exposition(stats: context.library.pipeline?.stats, viewers: context.viewers.count)
        return Compression.response(
            Data(text.utf8), contentType: "text/plain; version=0.0.4; charset=utf-8", headers: [.cacheControl: "no-store"], for: request)
    }
}
