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

    /// A write carries events that are queued together up to about this many bytes.
    static let batchBytes = 64 * 1024

    func write(to writer: inout any ResponseBodyWriter) async throws {
        defer { outbox.detach(generation: generation) }
        try await writer.write(ByteBuffer(string: "retry: \(Int(retry / .milliseconds(1)))\n\n"))
        while let item = await outbox.next(generation: generation) {
            var buffer = ByteBuffer()
            switch item {
            case .event(let event): event.write(to: &buffer)
            case .heartbeat: buffer.writeStaticString(": ping\n\n")
            }
            // What came meanwhile goes in the same write: one write (and one chunk) per burst, not per
            // event, when a thousand streams share two cores.
            while buffer.readableBytes < Self.batchBytes, let more = outbox.nextIfReady(generation: generation) {
                more.write(to: &buffer)
            }
            try await writer.write(buffer)
        }
        try await writer.finish(nil)
    }
}
