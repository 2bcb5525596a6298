import Hummingbird

/// The HTTP contract (written down in `Public/openapi.json`, served at `/openapi.json`), each route to its handler.
enum Routes {
    /// `page`: the page's handler, shared with the event loop's `ReadyPage` (nil: one of its own).
    static func router(context: AppContext, page: PageHandler? = nil) throws -> Router<PhotoRequestContext> {
        let router = Router(context: PhotoRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: SecurityHeadersMiddleware())
        if let strictTransportSecurity = StrictTransportSecurity(context.configuration) {
            router.add(middleware: strictTransportSecurity)
        }
        router.add(middleware: RouteMiddleware(
            metrics: context.metrics, logger: context.logger, maxBodyBytes: context.configuration.maxRequestBodyBytes))
        let page = try page ?? PageHandler(context: context)
        let labPage = try LabPageHandler(context: context)
        install(on: router, context: context, page: page, labPage: labPage)
        // Behind a proxy that forwards the public prefix as is, the same routes answer under it too.
        let basePath = context.configuration.basePath
        if !basePath.isEmpty {
            install(on: router.group(RouterPath(basePath)), context: context, page: page, labPage: labPage)
        }
        return router
    }

    private static func install(
        on routes: some RouterMethods<PhotoRequestContext>, context: AppContext, page: PageHandler, labPage: LabPageHandler
    ) {
        routes.get("/", use: page.handle)
        routes.get("/events", use: EventsHandler(context: context).handle)
        let shared = SharedEventsHandler(context: context)
        routes.get("/events/shared", use: shared.open)
        routes.post("/api/streams/:id/viewers", use: shared.join)
        routes.delete("/api/streams/:id/viewers/:viewer", use: shared.leave)
        let viewers = ViewersHandler(context: context)
        routes.post("/api/viewers", use: viewers.handle)
        routes.delete("/api/viewers/:id", use: viewers.leave)
        routes.post("/api/viewport", use: ViewportHandler(context: context).handle)
        let presentations = PresentationsHandler(context: context)
        routes.post("/api/presentations", use: presentations.start)
        routes.delete("/api/presentations/:code", use: presentations.end)
        routes.post("/api/presentations/:code/followers", use: presentations.follow)
        routes.post("/api/presentations/:code/cold-starts", use: presentations.startCold)
        routes.get("/api/photos", use: PhotosHandler(context: context).handle)
        routes.get("/api/stats", use: StatsHandler(context: context).handle)
        routes.post("/api/photos/:index/retry", use: RetryHandler(context: context).handle)
        routes.get("/photos/:index/:variant", use: ImageHandler(context: context).handle)
        let staticFiles = StaticFileHandler(files: context.staticFiles)
        routes.get("/static/**", use: staticFiles.handle)
        routes.get("/openapi.json", use: staticFiles.contract)
        let labs = LabsHandler(context: context)
        routes.get("/lab", use: labPage.handle)
        routes.post("/api/labs", use: labs.create)
        routes.get("/api/labs/:id", use: labs.show)
        routes.delete("/api/labs/:id", use: labs.end)
        routes.put("/api/labs/:id/summary", use: labs.summary)
        let labPresentations = LabPresentationsHandler(context: context)
        routes.post("/api/labs/:id/presentation", use: labPresentations.start)
        routes.delete("/api/labs/:id/presentation", use: labPresentations.stop)
        routes.post("/api/lab-presentations/:code/followers", use: labPresentations.follow)
        routes.get("/api/lab-presentations/:code/followers/:follower", use: labPresentations.view)
        routes.delete("/api/lab-presentations/:code/followers/:follower", use: labPresentations.leave)
        routes.get("/lab/images/:file", use: labs.image)
        routes.get("/healthz", use: HealthHandler(context: context).handle)
        routes.get("/metrics", use: MetricsHandler(context: context).handle)
    }
}
