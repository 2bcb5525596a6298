import Foundation
import HTTPTypes
import Hummingbird
import PhotoPipeline
import PhotoTransport

/// One event connection for several viewers: `GET /events/shared` opens it, `POST
/// /api/streams/ID/viewers` makes a viewer ride on it, `DELETE /api/streams/ID/viewers/VIEWER`
/// takes one off. A browser's tabs (and a lab's lanes) so hold one connection of the six HTTP/1.1
/// gives a host, whatever their number.
struct SharedEventsHandler: Sendable {
    let context: AppContext

    /// `GET /events/shared`: the stream, its first event `stream` naming it. `429` when its client
    /// holds its share open (`--shared-streams-per-client`, and one more for each of its followers in
    /// a presentation's room), each carrying a viewer (else the one
    /// that has carried none for longest is closed to make room); `503` while the events queued for all
    /// viewers and not yet read are past the server's budget (as `GET /events`).
    func open(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let streams = context.viewers.streams
        let client = ClientAddress.group(
            context.clientAddress(of: request, peer: requestContext.peer))
        // Held from here until the stream ends, or until the response is dropped unwritten.
        let place = try streams.hold(for: client, room: context.roomPlaces(of: client))
        try context.viewers.unsent.admitStream()
        let channel = requestContext.channel
        let (retry, meter) = (context.configuration.sseRetry, context.metrics.sharedStreams)
        return .eventStream { body in
            // Opened as the body is written: a stream exists only while its connection can carry it.
            let stream = streams.open(place: place, cutConnection: { channel.close(promise: nil) })
            defer { streams.close(stream.id); place.release() }
            try await SharedEventWriter(stream: stream, retry: retry, meter: meter).write(to: &body)
        }
    }

    /// `POST /api/streams/ID/viewers` with `{"viewer": VIEWER, "lastEventId": N}` (`lastEventId`
    /// optional): the viewer's events travel on that stream from now on, after `N` when the viewer's
    /// history still holds it, else from a fresh snapshot; it leaves any stream that carried it
    /// before. `204`; `404` for an unknown stream or viewer, `409` when the stream is full.
    func join(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let body = try await request.body(limit: context.configuration.maxRequestBodyBytes)
        let (viewer, lastEventID) = try Self.parseJoin(body)
        let stream = try stream(requestContext)
        let session = try context.session(viewer)
        try context.viewers.unsent.admitStream()
        do {
            try stream.join(session, lastEventID: lastEventID) { context.snapshot(for: session) }
        } catch {
            throw APIError(error)
        }
        return .empty(.noContent, headers: [.cacheControl: "no-store"])
    }

    /// `DELETE /api/streams/ID/viewers/VIEWER`: the viewer's events stop travelling on the stream
    /// (it stays a viewer: it may join another). `204`; `404` when the stream does not carry it.
    func leave(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let stream = try stream(requestContext)
        let viewer = requestContext.parameters.get("viewer") ?? ""
        guard stream.leave(ViewerID(viewer)) else {
            throw APIError(SharedStreamError.notCarried(stream: stream.id, viewer: viewer))
        }
        return .empty(.noContent, headers: [.cacheControl: "no-store"])
    }

    private func stream(_ requestContext: PhotoRequestContext) throws(APIError) -> SharedEventStream {
        do {
            return try context.viewers.streams.stream(requestContext.parameters.get("id") ?? "")
        } catch {
            throw APIError(error)
        }
    }

    /// The join's body: the viewer's id and, optionally, the last of its events the page has.
    static func parseJoin(_ data: Data) throws(APIError) -> (viewer: String, lastEventID: UInt64?) {
        guard let fields = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw .badRequest("body must be a JSON object {\"viewer\", \"lastEventId\"}")
        }
        guard let viewer = try RequestFields.field("viewer", String.self, in: fields), !viewer.isEmpty else {
            throw .badRequest("\"viewer\" must be a non-empty string")
        }
        guard let last = try RequestFields.field("lastEventId", Int.self, in: fields) else { return (viewer, nil) }
        guard last >= 0 else { throw .unprocessable("\"lastEventId\" must not be negative (got \(last))") }
        return (viewer, UInt64(last))
    }
}
