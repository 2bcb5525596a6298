import Foundation
import Hummingbird
import Mustache

/// `GET /lab`: the lab page (`Templates/lab.mustache`), which starts its lab with `POST /api/labs`.
/// When `--max-labs` labs run already it answers 503 with the same page saying the lab is busy
/// and when to try again.
struct LabPageHandler: Sendable {
    let context: AppContext
    private let page: Data
    private let busyPage: Data

    /// Seconds the busy page suggests waiting (labs end when their page closes).
    static let retryAfter = 60

    init(context: AppContext) throws(APIError) {
        self.context = context
        let configuration = context.configuration
        func render(busy: Bool) throws(APIError) -> Data {
            let values: [String: Any] = [
                "title": "ClassicPhotos Lab",
                "basePath": configuration.basePath,
                "staticBase": context.staticBase,
                "latencyMs": context.origin.latencyMs,
                "bandwidth": context.origin.bandwidth,
                "maxLabs": configuration.maxLabs,
                "prefetch": Defaults.prefetchMargin,
                "prefetchMin": Defaults.prefetchMargins.lowerBound,
                "prefetchMax": Defaults.prefetchMargins.upperBound,
                "rowHeight": Defaults.rowHeight,
                "reportIntervalMs": Defaults.reportIntervalMs,
                "rowWords": RowWords.json,
                "hubProtocol": HubProtocol.json,
                "retryAfter": Self.retryAfter,
                "busy": busy,
            ]
            guard let html = context.templates.render(values, withTemplate: "lab") else {
                throw .internal("template lab.mustache is missing")
            }
            return Data(html.utf8)
        }
        page = try render(busy: false)
        busyPage = try render(busy: true)
    }

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        guard context.labs.count < context.configuration.maxLabs else { throw Busy(page: busyPage) }
        return Self.html(page, for: request)
    }

    private static func html(_ page: Data, for request: Request) -> Response {
        Compression.response(page, contentType: "text/html; charset=utf-8", headers: [.cacheControl: "no-store"], for: request)
    }

    /// `--max-labs` labs run already: 503 with the page saying so and when to try again, the status
    /// chosen where errors become HTTP.
    private struct Busy: HTTPResponseError {
        let page: Data
        var status: HTTPResponse.Status { .serviceUnavailable }

        func response(from request: Request, context: some RequestContext) throws -> Response {
            var response = LabPageHandler.html(page, for: request)
            response.status = status
            response.headers[.retryAfter] = String(LabPageHandler.retryAfter)
            return response
        }
    }
}
