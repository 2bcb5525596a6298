import FlyingFox
import Foundation

/// `GET /events?viewer=ID`: the viewer's server-sent events. A reconnect with `Last-Event-ID`
/// gets what it missed, or a snapshot when too much was missed.
struct EventsHandler: HTTPHandler {
    let context: AppContext

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let session = try context.session(request.queryValue("viewer"))
        let lastEventID = (request.headers[HTTPHeader("Last-Event-ID")] ?? request.queryValue("lastEventId"))
            .flatMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
        let generation = session.outbox.attach(lastEventID: lastEventID) { context.snapshot(for: session) }
        let stream = ServerSentEventStream(outbox: session.outbox, generation: generation, retry: context.configuration.sseRetry)
        return HTTPResponse(
            statusCode: .ok,
            headers: [
                .contentType: "text/event-stream; charset=utf-8",
                .cacheControl: "no-cache, no-transform",
                HTTPHeader("X-Accel-Buffering"): "no",
            ],
            body: HTTPBodySequence(from: stream, suggestedBufferSize: 16 * 1024))
    }
}
