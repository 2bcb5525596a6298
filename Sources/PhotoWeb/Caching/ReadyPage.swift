import HTTPTypes
import NIOCore
import PhotoPipeline
import PhotoTransport
import Synchronization

/// A plain `GET /` (no query) answered on the event loop with what the route (`PageHandler`) would
/// answer: a new viewer of the client, its first screen started, and the page with its id and the
/// kept first screen put in; the same fields and bytes (gzipped when the route would gzip them, as
/// one gzip member spliced from parts compressed ahead of time: `PageTemplate.gzippedBody`), the same
/// count in `/metrics`, the same per-client limits.
///
/// Everything it does is synchronous and short (the viewer's bookkeeping, its first rows' operations
/// enqueued, the page's bytes put together). Anything else goes to the route: a list not loaded or a
/// first screen not kept for the list's version now (rendering rows is no work for an event loop), a
/// query (`follow=`, `row=`, a strategy), HEAD, and a refusal:
/// a load the client's limits refuse is handed on to be decided again there, its token given back,
/// so it is counted once and answered with the route's page saying why.
final class ReadyPage: ReadyResponding {
    let page: PageHandler
    private let routerFields: HTTPFields
    private let meter: AnswerMeter
    /// Requests answered here, for tests.
    let answered = Atomic<Int>(0)

    /// `routerFields`: what the router's middleware adds to every answer (`HTTPFields.routerMiddleware`).
    init(page: PageHandler, metrics: ServerMetrics, routerFields: HTTPFields) {
        (self.page, self.routerFields) = (page, routerFields)
        // The label `RouteMiddleware` gives the route's answer.
        meter = metrics.answerMeter(route: "GET /", status: 200)
    }

    func readyResponse(to request: HTTPRequest, on channel: any Channel) -> ReadyResponse? {
        let start = ContinuousClock.now
        let context = page.context
        guard request.method == .get, request.path == "/", let pipeline = context.library.pipeline, let screen = page.keptTopScreen(of: pipeline)
        else { return nil }
        let client: String
        do {
            client = try context.admitNewViewer(fields: request.headerFields, peer: channel.remoteAddress)
        } catch {
            return nil
        }
        let session: ViewerSession
        do {
            session = try context.newViewer(client: client)
        } catch {
            context.rateLimiter.refund(client)
            return nil
        }
        context.startFirstScreen(of: session, row: nil)
        // The route's fields in its order: its own, `Content-Type`, `Vary` and `Content-Encoding`
        // (`Compression`), `Content-Length` (Hummingbird's), then the middleware's.
        var fields = page.fields
        fields[.contentType] = PageTemplate.contentType
        fields[.vary] = "Accept-Encoding"
        let body: ByteBuffer
        // Gzipped when `Compression.response` would: accepted (`q=0` is not), and it pays.
        if Compression.accepted(by: request.headerFields),
           let gzipped = page.template.gzippedBody(viewer: session.id.rawValue, screen: screen),
           gzipped.uncompressedCount >= Compression.minimumBytes, gzipped.body.readableBytes < gzipped.uncompressedCount {
            body = gzipped.body
            fields[.contentEncoding] = "gzip"
        } else {
            body = page.template.body(viewer: session.id.rawValue, screen: screen)
        }
        fields[.contentLength] = String(body.readableBytes)
        fields.append(contentsOf: routerFields)
        answered.add(1, ordering: .relaxed)
        meter.record(since: start)
        return ReadyResponse(head: HTTPResponse(status: .ok, headerFields: fields), body: body)
    }
}
