import Foundation
import Hummingbird
import PhotoPipeline
import Logging

/// `POST /api/labs`, `GET /api/labs/ID`, `PUT /api/labs/ID/summary`, `DELETE /api/labs/ID`, and the browser lane's photos
/// (`GET /lab/images/FILE?latency=&bandwidth=`, the built-in origin's bytes through this server).
struct LabsHandler: Sendable {
    let context: AppContext

    /// Starts a lab: `201` with its lanes' viewers; `400` with the reason for a bad body, `409`
    /// while the list loads, `429` past the client's `--viewers-per-minute` or its share of labs (`--labs-per-client`), `503` past `--max-labs`.
    func create(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let body = try await request.body(limit: context.configuration.maxRequestBodyBytes)
        let pipeline = try context.loadedPipeline()
        // A lab is a new page's worth of viewers: it counts against the client's limit as one.
        let client = try context.admitNewViewer(for: request, peer: requestContext.peer)
        let origin = context.origin
        let labRequest = try LabRequest.parse(
            body, available: pipeline.entries.count, defaults: LabNetwork(origin), origin: origin)
        let proxied = origin.servesList
        let basePath = context.configuration.basePath
        let lab = try context.labs.create(labRequest, records: pipeline.records(in: 0...(labRequest.photos - 1)), base: pipeline.configuration, client: client) { record in
            guard proxied, let file = record.url.range(of: "/images/").map({ record.url[$0.upperBound...] }) else { return record.url }
            return origin.url("\(basePath)/lab/images/\(file)", latencyMs: labRequest.network.latencyMs, bandwidth: labRequest.network.bandwidth)
        }
        context.logger.info("lab started", metadata: [
            "lab": "\(lab.id)", "lanes": "\(labRequest.lanes.map(\.name).joined(separator: ","))", "labs": "\(context.labs.count)",
        ])
        return .json(lab.report, status: .created)
    }

    /// The lab's lanes and their figures so far; `404` when it has ended.
    func show(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        var response = Response.json(try lab(requestContext).report)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `PUT /api/labs/ID/summary`: the page's summary of the trace that just ended, kept with the lab
    /// (its report and a presented lab's followers show it): `204`; `400` with the reason for one that
    /// is not a summary of this lab's lanes; `404` when the lab has ended.
    func summary(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let lab = try lab(requestContext)
        let body = try await request.body(limit: context.configuration.maxRequestBodyBytes)
        lab.keep(try LabSummary.parse(body, laneCount: lab.lanes.count))
        return .empty(.noContent, headers: [.cacheControl: "no-store"])
    }

    /// Ends the lab at once: `204`; `404` when it has ended already.
    func end(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let id = try lab(requestContext).id
        context.labs.end(id)
        context.logger.info("lab ended", metadata: ["lab": "\(id)", "labs": "\(context.labs.count)"])
        return .empty(.noContent, headers: [.cacheControl: "no-store"])
    }

    /// A photo of the built-in origin for the browser lane, as the origin serves it (latency,
    /// bandwidth, ranges), readable by Resource Timing from any page of this server's names; `404`
    /// when the server runs on another data source, `503` past `--max-lab-image-transfers` sent at once.
    func image(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        guard context.origin.servesList else { throw Self.notProxied }
        let transfers = context.labs.imageTransfers
        guard let lease = transfers.lease() else {
            throw APIError.unavailable("\(transfers.limit) lab photos are being sent already (at most that many at once); try again shortly")
        }
        guard var response = try await context.origin.photo(requestContext.parameters.get("file"), request: request) else {
            throw Self.notProxied
        }
        // The lab page asks for these from a second name of this server (connections of their own,
        // as a standalone page has): its Resource Timing may still read their timings and sizes.
        response.headers[.timingAllowOrigin] = "*"
        // The lease goes with the body: it is freed when the body is written, fails, or is dropped unwritten.
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            try await body.write(writer)
            withExtendedLifetime(lease) {}
        }
        return response
    }

    /// The server runs on another data source: there are no origin's photos to send.
    private static let notProxied = APIError.notFound("the browser lane's photos come straight from the data source's URLs")

    private func lab(_ requestContext: PhotoRequestContext) throws(APIError) -> Lab {
        let id = requestContext.parameters.get("id") ?? ""
        guard let lab = context.labs.lab(id) else { throw .notFound("no lab \(id): it ended (its page closed) or never was") }
        return lab
    }
}
