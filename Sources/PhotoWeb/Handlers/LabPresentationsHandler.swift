import Foundation
import Hummingbird
import Logging
import PhotoTransport

/// Presenting a lab (`LabPresentations`). The presenter names its lab: `POST /api/labs/ID/presentation`
/// starts presenting it (`{"after": PREVIOUS}`: the presentation of its previous run carries on with
/// it), `DELETE /api/labs/ID/presentation` stops. A follower names the follow code and its own key:
/// `POST /api/lab-presentations/CODE/followers` joins, `GET .../followers/KEY` is its view (the
/// presenter's run, with a watcher per server lane), `DELETE .../followers/KEY` leaves. A follow code
/// names no lab and no viewer that drives one: nothing here or elsewhere drives, reports for, ends or
/// restarts a lab by it.
struct LabPresentationsHandler: Sendable {
    let context: AppContext

    /// `POST /api/labs/ID/presentation`: `201 {"code", "follow", "followers"}`; `404` for a lab that
    /// ended, or an `after` that presents nothing; `409` when the lab is presented under another code.
    func start(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let lab = try lab(requestContext)
        let body = try await request.body(limit: context.configuration.maxRequestBodyBytes)
        var after: String?
        if !body.isEmpty {
            guard let fields = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
                throw APIError.badRequest("body must be empty or a JSON object {\"after\": PREVIOUS_LAB}")
            }
            after = try RequestFields.field("after", String.self, in: fields)
        }
        let presentations = context.labs.presentations
        let (code, followers) = try after.map { previous throws(APIError) in try presentations.carryOn(from: previous, to: lab) }
            ?? presentations.start(lab)
        context.logger.info("lab presented", metadata: ["lab": "\(lab.id)", "followers": "\(followers)"])
        let body201 = LabPresentationPayloads.Started(
            code: code.rawValue, follow: "\(context.configuration.basePath)/lab?follow=\(code)", followers: followers)
        return .json(body201, status: .created)
    }

    /// `DELETE /api/labs/ID/presentation`: `204`, its followers told; `404` when the lab presents nothing.
    func stop(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        try context.labs.presentations.stop(labID: requestContext.parameters.get("id") ?? "")
        return .empty(.noContent, headers: [.cacheControl: "no-store"])
    }

    /// `POST /api/lab-presentations/CODE/followers`: `201` with the follower's view; `404` for a code
    /// that names no running presentation (ended or never), `429` past `--followers-per-presentation`
    /// or the client's share of viewers, `503` when the server has its maximum of viewers. Within the
    /// presentation's room (`--room-size`) a follower is not a new viewer of its address; past it, it
    /// is (`--viewers-per-minute`: `429` saying so).
    func follow(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let code = try PresentationsHandler.code(requestContext.parameters.get("code"))
        let address = context.clientAddress(of: request, peer: requestContext.peer)
        let presentations = context.labs.presentations
        let settings = context.presentations.settings
        let inRoom = try presentations.roomIsOpen(code, size: settings.roomSize)
        if !inRoom, let seconds = context.rateLimiter.admit(address) {
            throw Presentations.roomFull(settings.roomSize, client: address, retryAfter: seconds)
        }
        let key = try presentations.follow(
            code, client: ClientAddress.group(address), limit: settings.followersPerPresentation, inRoom: inRoom, roomSize: settings.roomSize)
        do {
            return .json(try presentations.view(code, follower: key), status: .created)
        } catch {
            try? presentations.leave(code, follower: key)
            throw error
        }
    }

    /// `GET /api/lab-presentations/CODE/followers/KEY`: `200` with the follower's view; `404` for a
    /// code or key that names no follower (a presentation that ended says so).
    func view(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let (code, key) = try Self.follower(requestContext)
        var response = Response.json(try context.labs.presentations.view(code, follower: key))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `DELETE /api/lab-presentations/CODE/followers/KEY`: `204`, its watchers gone; `404` as `view`.
    func leave(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let (code, key) = try Self.follower(requestContext)
        try context.labs.presentations.leave(code, follower: key)
        return .empty(.noContent, headers: [.cacheControl: "no-store"])
    }

    private func lab(_ requestContext: PhotoRequestContext) throws(APIError) -> Lab {
        let id = requestContext.parameters.get("id") ?? ""
        guard let lab = context.labs.lab(id) else { throw .notFound("no lab \(id): it ended (its page closed) or never was") }
        return lab
    }

    /// The code and the follower's key from the path: a malformed one names no follower (`404`).
    private static func follower(_ requestContext: PhotoRequestContext) throws(APIError) -> (FollowCode, FollowCode) {
        let code = try PresentationsHandler.code(requestContext.parameters.get("code"))
        guard let text = requestContext.parameters.get("follower"), let key = FollowCode(parsing: text) else {
            throw .notFound("no such follower of presentation \(code): follow the link again")
        }
        return (code, key)
    }
}
