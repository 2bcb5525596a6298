import Foundation
import HTTPTypes
import Hummingbird

/// `GET /events?viewer=ID`: the viewer's server-sent events. A reconnect with `Last-Event-ID`
/// gets what it missed, or a snapshot (of the rows near the viewer's viewport) when too much was
/// missed. `503` while the events queued for all viewers and not yet read are past
/// `--unsent-events-budget-mb`: slow readers cannot add up to the process's memory.
struct EventsHandler: Sendable {
    let context: AppContext

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let session = try context.session(request.queryValue("viewer"))
        try context.viewers.unsent.admitStream()
        let lastEventID = (request.headers[.lastEventID] ?? request.queryValue("lastEventId"))
            .flatMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
        let channel = requestContext.channel
        let generation = session.outbox.attach(lastEventID: lastEventID, cutConnection: { channel.close(promise: nil) }) {
            context.snapshot(for: session)
        }
        let stream = ServerSentEventStream(
            outbox: session.outbox, generation: generation, retry: context.configuration.sseRetry, meter: context.metrics.ownStreams)
        return .eventStream { writer in try await stream.write(to: &writer) }
    }
}
