import Foundation
import Hummingbird
import Mustache

/// `GET /lab`: the lab page (`Templates/lab.mustache`), which starts its lab with `POST /api/labs`.
/// When `--max-labs` labs run already it answers 503 with the same page saying the lab is busy
/// and when to try again. `?follow=CODE` opens the page of a presented lab's follower (never busy: it
/// runs no lab), or a page saying the presentation ended or never was.
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
        if let follow = request.queryValue("follow") {
            // A follower runs no lab of its own: never busy. A code that names no running presentation
            // gets a page saying so, never a lab of its own nor someone else's.
            let code = FollowCode(parsing: follow)
            switch code.flatMap(context.labs.presentations.exists) {
            case true?: return Self.html(page, for: request)
            case false?: throw refused(.notFound("this presentation has ended"), request)
            case nil: throw refused(.notFound("no such presentation: check the follow link"), request)
            }
        }
        guard context.labs.count < context.configuration.maxLabs else { throw Busy(page: busyPage) }
        return Self.html(page, for: request)
    }

    private func refused(_ error: APIError, _ request: Request) -> any Error {
        RefusedPage(error, for: request, context: context) ?? error
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
