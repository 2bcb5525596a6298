import Foundation
import Hummingbird
import SampleOrigin

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
                "latencyMs": SimulatedNetwork(latency: configuration.sample.latency, bandwidth: 0).latencyMilliseconds,
                "bandwidth": configuration.sample.bandwidth,
                "maxLabs": configuration.maxLabs,
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
        let busy = context.labs.count >= context.configuration.maxLabs
        var response = Compression.response(
            busy ? busyPage : page, contentType: "text/html; charset=utf-8", headers: [.cacheControl: "no-store"], for: request)
        if busy {
            response.status = .serviceUnavailable
            response.headers[.retryAfter] = String(Self.retryAfter)
        }
        return response
    }
}
