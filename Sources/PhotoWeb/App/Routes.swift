import Foundation
import HTTPTypes
import Hummingbird
import PhotoTransport

/// The HTTP contract (written down in `Public/openapi.json`, served at `/openapi.json`), each route to its handler.
enum Routes {
    /// The handlers of the routes whose answers can be ready, made once: the router and the event
    /// loop's `ReadyRoutes` call the same ones (and share what they keep).
    struct Answering: Sendable {
        let page: PageHandler
        let photos: PhotosHandler
        let images: ImageHandler
        let viewport: ViewportHandler
        /// The route's `204` for a report taken, as it is sent.
        let reportTaken: ReadyResponse
        /// The most body bytes of a report read on the event loop: a report is a few dozen; a larger body is the router's.
        let reportBodyLimit: Int

        init(context: AppContext) throws(APIError) {
            let routerFields = HTTPFields.routerMiddleware(StrictTransportSecurity(context.configuration))
            viewport = ViewportHandler(context: context)
            reportTaken = ReadyResponse(
                head: HTTPResponse(status: .noContent, headerFields: ViewportHandler.accepted.headers + routerFields), body: nil)
            reportBodyLimit = min(4 * 1024, context.configuration.maxRequestBodyBytes)
            page = try PageHandler(context: context, routerFields: routerFields)
            photos = PhotosHandler(context: context)
            images = ImageHandler(context: context, answers: ImageAnswers(routerFields: routerFields))
        }
    }

    /// The routes `answering`'s handlers can answer on the event loop, each under its router path.
    static func ready(_ answering: Answering, metrics: ServerMetrics) -> ReadyRoutes {
        let (page, photos, images, viewport, taken) = (answering.page, answering.photos, answering.images, answering.viewport, answering.reportTaken)
        return ReadyRoutes([
            .init(method: .get, path: PageHandler.path) { request, _, _, channel in page.ready(request, on: channel) },
            .init(method: .get, path: ImageHandler.path) { request, parameters, _, _ in images.ready(request, parameters: parameters) },
            .init(method: .get, path: PhotosHandler.path) { request, parameters, _, _ in photos.ready(request, parameters: parameters) },
            // A report taken (no query) is answered; one refused, or inside its viewer's pace, is the
            // router's, which refuses it again with its reason or holds it (`take` changed nothing).
            .init(method: .post, path: viewportPath, bodyLimit: answering.reportBodyLimit) { request, _, body, _ in
                guard request.path == viewportPath, let body,
                      (try? viewport.take(Data(body.readableBytesView), holding: false)) != nil else { return nil }
                return taken
            },
        ], metrics: metrics)
    }

    /// `POST /api/viewport`'s route.
    static let viewportPath = "/api/viewport"

    /// `answering`: the handlers shared with the event loop's `ReadyRoutes` (nil: ones of its own).
    static func router(context: AppContext, answering: Answering? = nil) throws -> Router<PhotoRequestContext> {
        let router = Router(context: PhotoRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: SecurityHeadersMiddleware())
        if let strictTransportSecurity = StrictTransportSecurity(context.configuration) {
            router.add(middleware: strictTransportSecurity)
        }
        router.add(middleware: RouteMiddleware(
            metrics: context.metrics, logger: context.logger, maxBodyBytes: context.configuration.maxRequestBodyBytes))
        let answering = try answering ?? Answering(context: context)
        let labPage = try LabPageHandler(context: context)
        install(on: router, context: context, answering: answering, labPage: labPage)
        // Behind a proxy that forwards the public prefix as is, the same routes answer under it too.
        let basePath = context.configuration.basePath
        if !basePath.isEmpty {
            install(on: router.group(RouterPath(basePath)), context: context, answering: answering, labPage: labPage)
        }
        return router
    }

    private static func install(
        on routes: some RouterMethods<PhotoRequestContext>, context: AppContext, answering: Answering, labPage: LabPageHandler
    ) {
        routes.get(RouterPath(PageHandler.path), use: answering.page.handle)
        routes.get("/events", use: EventsHandler(context: context).handle)
        let shared = SharedEventsHandler(context: context)
        routes.get("/events/shared", use: shared.open)
        routes.post("/api/streams/:id/viewers", use: shared.join)
        routes.delete("/api/streams/:id/viewers/:viewer", use: shared.leave)
        let viewers = ViewersHandler(context: context)
        routes.post("/api/viewers", use: viewers.handle)
        routes.delete("/api/viewers/:id", use: viewers.leave)
        routes.post(RouterPath(viewportPath), use: answering.viewport.handle)
        let presentations = PresentationsHandler(context: context)
        routes.post("/api/presentations", use: presentations.start)
        routes.delete("/api/presentations/:code", use: presentations.end)
        routes.post("/api/presentations/:code/followers", use: presentations.follow)
        routes.post("/api/presentations/:code/cold-starts", use: presentations.startCold)
        routes.get(RouterPath(PhotosHandler.path), use: answering.photos.handle)
        routes.get("/api/stats", use: StatsHandler(context: context).handle)
        routes.post("/api/photos/:index/retry", use: RetryHandler(context: context).handle)
        routes.get(RouterPath(ImageHandler.path), use: answering.images.handle)
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
