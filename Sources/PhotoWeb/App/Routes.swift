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
            ("POST /api/photos/:index/retry", RetryHandler(context: context)),
            ("GET /photos/:index/:variant", ImageHandler(context: context)),
            ("GET,HEAD /static/:file", StaticFileHandler(directory: context.configuration.publicDirectory)),
            ("GET /healthz", HealthHandler(context: context)),
            ("GET /metrics", MetricsHandler(context: context)),
            ("*", NotFoundHandler()),
        ]
        let basePath = context.configuration.basePath
        for (route, handler) in routes {
            let wrapped = RouteHandler(route: route, handler: handler, metrics: context.metrics)
            // Behind a proxy that forwards the public prefix as is, the same routes answer under it too.
            if !basePath.isEmpty, let space = route.firstIndex(of: " ") {
                let path = route[route.index(after: space)...]
                await server.appendRoute(HTTPRoute("\(route[..<space]) \(basePath)\(path == "/" ? "" : path)"), to: wrapped)
                if path == "/" { await server.appendRoute(HTTPRoute("\(route[..<space]) \(basePath)/"), to: wrapped) }
            }
            await server.appendRoute(HTTPRoute(route), to: wrapped)
        }
    }
}

/// Anything else: a 404 that says what was asked for.
struct NotFoundHandler: HTTPHandler {
    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw APIError.notFound("no route for \(request.method.rawValue) \(request.path)")
    }
}
