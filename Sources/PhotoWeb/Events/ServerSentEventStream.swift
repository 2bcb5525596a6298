import Foundation
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat

/// The body of a `GET /events` response: one viewer's outbox written as server-sent events,
/// with a `retry` hint first and comment heartbeats while idle. Ends when the outbox closes
/// this stream (a newer connection, too much unread, shutdown) or the client goes away (a write
/// fails); either way the outbox learns the stream is gone.
struct ServerSentEventStream: Sendable {
    let outbox: EventOutbox
    let generation: Int
    let retry: Duration

    func write(to writer: inout any ResponseBodyWriter) async throws {
        defer { outbox.detach(generation: generation) }
        try await writer.write(ByteBuffer(string: "retry: \(Int(retry / .milliseconds(1)))\n\n"))
        while let item = await outbox.next(generation: generation) {
            switch item {
            case .event(let event): try await writer.write(ByteBuffer(data: event.encoded))
            case .heartbeat: try await writer.write(ByteBuffer(string: ": ping\n\n"))
            }
        }
        try await writer.finish(nil)
    }
}
