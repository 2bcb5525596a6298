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
    /// Told of it open and of its events written (`/metrics`).
    let meter: EventStreamMeter

    func write(to writer: inout any ResponseBodyWriter) async throws {
        meter.opened()
        defer {
            outbox.detach(generation: generation)
            meter.closed()
        }
        try await writer.write(ByteBuffer(string: "retry: \(Int(retry / .milliseconds(1)))\n\n"))
        // One write (and one chunk) per item: an item is everything queued when the writer came for
        // it, so a burst costs one syscall, not one per event, when a thousand streams share two cores.
        while let item = await outbox.next(generation: generation) {
            var buffer = ByteBuffer()
            switch item {
            case .events(let events):
                buffer.reserveCapacity(events.reduce(0) { $0 + $1.data.count + OutgoingEvent.framingBytes })
                for event in events { event.write(to: &buffer) }
            case .heartbeat:
                buffer.writeStaticString(": ping\n\n")
            }
            try await writer.write(buffer)
            if case .events(let events) = item { meter.written(events.lazy.map(\.made)) }
        }
        try await writer.finish(nil)
    }
}
