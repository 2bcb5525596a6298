import FlyingFox

/// The HTTP contract (documented in the README), each route to its handler.
enum Routes {
    static func install(on server: HTTPServer, context: AppContext) async {
        let routes: [(String, any HTTPHandler)] = [
            ("GET /", PageHandler(context: context)),
            ("GET /events", EventsHandler(context: context)),
            ("POST /api/viewers", ViewersHandler(context: context)),
            ("POST /api/viewport", ViewportHandler(context: context)),
            ("GET /api/photos", PhotosHandler(context: context)),
            ("GET /api/stats", StatsHandler(context: context)),
            ("GET /photos/:index/:variant", ImageHandler(context: context)),
            ("GET,HEAD /static/:file", StaticFileHandler(directory: context.configuration.publicDirectory)),
            ("GET /healthz", HealthHandler(context: context)),
            ("GET /metrics", MetricsHandler(context: context)),
            ("*", NotFoundHandler()),
        ]
        for (route, handler) in routes {
            await server.appendRoute(
                HTTPRoute(route), to: RouteHandler(route: route, handler: handler, metrics: context.metrics))
        }
    }
}

/// Anything else: a 404 that says what was asked for.
struct NotFoundHandler: HTTPHandler {
    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw APIError.notFound("no route for \(request.method.rawValue) \(request.path)")
    }
}
