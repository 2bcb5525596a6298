import Foundation
import Hummingbird
import NIOCore
import PhotoPipeline
import NIOFoundationEssentialsCompat

/// The body of a `GET /events/shared` response: a `retry` hint, the `stream` event naming the
/// stream (its id for joins and leaves, and how many viewers it may carry), then its members'
/// events as they come, each saying whose it is, and a comment heartbeat while quiet (its members'
/// outboxes ask for one on their channel's tick; a stream that carries nobody gets one from
/// `SharedStreams.heartbeatEmpty`, so it too notices a client that went away). Ends when the
/// client goes away (a write fails) or the stream is closed; either way the stream closes, so its
/// members' outboxes learn their stream is gone.
struct SharedEventWriter: Sendable {
    let stream: SharedEventStream
    let retry: Duration
    /// Told of it open and of its events written (`/metrics`).
    let meter: EventStreamMeter

    func write(to writer: inout any ResponseBodyWriter) async throws {
        meter.opened()
        defer {
            stream.close()
            meter.closed()
        }
        let mux = stream.mux
        try await writer.write(ByteBuffer(string: "retry: \(Int(retry / .milliseconds(1)))\n\n"))
        let opened = EventPayloads.json(EventPayloads.SharedStream(stream: stream.id, maxViewers: stream.maxViewers))
        try await writer.write(ByteBuffer(data: Self.encoded(name: "stream", data: opened)))
        var lastWrite = ContinuousClock.now
        // When the events of a write were made: kept from write to write, so it is allocated once.
        var made: [EventStamp] = []
        while let first = await mux.next() {
            // What came meanwhile goes in the same write: one write per burst, not per event (each
            // member's pull takes all its outbox had ready).
            var buffer = ByteBuffer()
            var entry: StreamMux.Entry? = first
            while let current = entry {
                let item: StreamMux.Item? = switch current {
                case .item(let item): item
                case .ready(let viewer, let generation): stream.pull(viewer, generation: generation)
                }
                switch item {
                case .events(let viewer, let events)?:
                    for event in events { Self.write(event, of: viewer, to: &buffer) }
                    made.append(contentsOf: events.lazy.map(\.made))
                case .control(let name, let data)?:
                    buffer.writeData(Self.encoded(name: name, data: data))
                case .heartbeat?:
                    // Each member's outbox asks for one when it is quiet: one a second is enough for all.
                    if buffer.readableBytes == 0, ContinuousClock.now - lastWrite >= .seconds(1) {
                        buffer.writeString(": ping\n\n")
                    }
                case nil:
                    break
                }
                entry = buffer.readableBytes < EventOutbox.batchBytes ? mux.nextIfReady() : nil
            }
            guard buffer.readableBytes > 0 else { continue }
            try await writer.write(buffer)
            lastWrite = .now
            meter.written(made)
            made.removeAll(keepingCapacity: true)
        }
        try await writer.finish(nil)
    }

    /// Viewer `viewer`'s event on a shared stream: its name, and as data
    /// `{"viewer": ID, "id": N, "data": PAYLOAD}`, `id` being the viewer's own event id (what a join
    /// names as `lastEventId`). No SSE `id` line: the stream's viewers each have their own.
    static func write(_ event: OutgoingEvent, of viewer: ViewerID, to buffer: inout ByteBuffer) {
        buffer.writeStaticString("event: ")
        buffer.writeString(event.name.rawValue)
        buffer.writeStaticString("\ndata: {\"viewer\":\"")
        buffer.writeString(viewer.rawValue)
        buffer.writeStaticString("\",\"id\":")
        buffer.writeString(String(event.id))
        buffer.writeStaticString(",\"data\":")
        buffer.writeData(event.data)
        buffer.writeStaticString("}\n\n")
    }

    /// A control event of the stream itself.
    static func encoded(name: String, data: Data) -> Data {
        var bytes = Data("event: \(name)\ndata: ".utf8)
        bytes.append(data)
        bytes.append(contentsOf: [0x0A, 0x0A])
        return bytes
    }
}
