import Foundation
import Locking
import NIOCore
import NIOHTTPTypes
import PhotoPipeline
import NIOFoundationEssentialsCompat

/// The body of a `GET /events/shared` response: a `retry` hint, the `stream` event naming the
/// stream (its id for joins and leaves, and how many viewers it may carry), then its members'
/// events as they come, each saying whose it is, and a comment heartbeat while quiet. Ends when the
/// client goes away (a write fails) or the stream is closed; either way the stream closes, so its
/// members' outboxes learn their stream is gone.
///
/// Written on the connection's event loop: the mux wakes the loop when an entry comes, and the loop
/// takes what is ready (pulling members' events from their outboxes) and writes it in one write, so
/// an event reaches the socket with no Swift task to be scheduled between its outbox and the write.
/// The head was written by Hummingbird before the body's closure runs; the writes here follow it on
/// the same channel and loop, and the closure's end (`Hummingbird`'s `.end`) follows them. At most
/// `maxUnflushedBytes` are handed to the channel and not yet written to the socket: past them the
/// loop waits for the socket (a reader that takes nothing leaves its events in the outboxes, whose
/// limits cut it off).
final class SharedEventWriter: Sendable {
    let stream: SharedEventStream
    let retry: Duration
    let heartbeat: Duration
    private let channel: any Channel

    /// Bytes handed to the channel and not yet on the socket, past which the loop stops taking entries.
    static let maxUnflushedBytes = 64 * 1_024

    private struct State {
        var unflushed = 0
        var lastWrite = ContinuousClock.now
        /// The body's closure, waiting for the stream's end.
        var done: CheckedContinuation<Void, Never>?
        var ended = false
        var failed = false
        /// Posts a heartbeat every `heartbeat`: a stream that carries nobody still notices a client that went away.
        var pinger: RepeatedTask?
    }

    /// Read and changed on the channel's event loop (and once, to park `done`, by the closure).
    private let state = Locked(State())

    init(stream: SharedEventStream, retry: Duration, heartbeat: Duration, channel: any Channel) {
        self.stream = stream
        self.retry = retry
        self.heartbeat = heartbeat
        self.channel = channel
    }

    /// Writes the stream until it ends; throws when the client went away (a write failed, or the
    /// connection closed).
    func write() async throws {
        defer { stream.close() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                state.withLock { $0.done = done }
                channel.eventLoop.execute { self.start() }
            }
        } onCancel: {
            // A stopping server cancels its connections: the stream must not hold the stop.
            stream.close()
            channel.eventLoop.execute { self.end() }
        }
        if state.withLock({ $0.failed }) { throw ChannelError.ioOnClosedChannel }
    }

    /// The stream's first lines, then whatever is ready. On the loop.
    private func start() {
        // Ended before it started (its task was cancelled at once): nothing is written.
        guard !state.withLock({ $0.ended }) else { return }
        // The connection gone (the client left, or a member's reader fell so far behind that its
        // outbox cut it): the stream ends now, not at the next write.
        channel.closeFuture.whenComplete { [self] _ in
            state.withLock { state in
                if !state.ended { state.failed = true }
            }
            stream.close()
            end()
        }
        let mux = stream.mux
        let pinger = channel.eventLoop.scheduleRepeatedTask(initialDelay: TimeAmount(heartbeat), delay: TimeAmount(heartbeat)) { _ in
            mux.post(.heartbeat)
        }
        let kept = state.withLock { state in
            if !state.ended { state.pinger = pinger }
            return !state.ended
        }
        if !kept { pinger.cancel() }
        var buffer = channel.allocator.buffer(capacity: 256)
        buffer.writeString("retry: \(Int(retry / .milliseconds(1)))\n\n")
        let opened = EventPayloads.json(EventPayloads.SharedStream(stream: stream.id, maxViewers: stream.maxViewers))
        buffer.writeData(Self.encoded(name: "stream", data: opened))
        write(buffer)
        drain()
    }

    /// Takes what the mux has ready, up to the unflushed bound, and writes it in one write; then asks
    /// the mux to wake the loop when the next entry comes. On the loop.
    private func drain() {
        let mux = stream.mux
        var buffer = ByteBuffer()
        let unflushed = state.withLock { $0.ended ? nil : $0.unflushed }
        guard let unflushed else { return }
        while unflushed + buffer.readableBytes < Self.maxUnflushedBytes {
            guard let entry = mux.nextIfReady() else {
                // Nothing queued: the next entry wakes the loop (unless one came meanwhile).
                if mux.isClosed { break }
                if mux.wakeWhenReady({ [self] in channel.eventLoop.execute { self.drain() } }) { break }
                continue
            }
            let item: StreamMux.Item? = switch entry {
            case .item(let item): item
            case .ready(let viewer, let generation): stream.pull(viewer, generation: generation)
            }
            switch item {
            case .events(let viewer, let events)?:
                for event in events { Self.write(event, of: viewer, to: &buffer) }
            case .control(let name, let data)?:
                buffer.writeData(Self.encoded(name: name, data: data))
            case .heartbeat?:
                // Each member's outbox asks for one when it is quiet: one a second is enough for all.
                if buffer.readableBytes == 0, ContinuousClock.now - state.withLock({ $0.lastWrite }) >= .seconds(1) {
                    buffer.writeString(": ping\n\n")
                }
            case nil:
                break
            }
        }
        if buffer.readableBytes > 0 { write(buffer) }
        if mux.isClosed { end() }
    }

    /// Hands `buffer` to the channel; when it is on the socket, the loop takes more if it had stopped
    /// at the bound. A failed write (the client went away) ends the stream. On the loop.
    private func write(_ buffer: ByteBuffer) {
        let count = buffer.readableBytes
        let wasBelow = state.withLock { state in
            defer {
                state.unflushed += count
                state.lastWrite = .now
            }
            return state.unflushed + count < Self.maxUnflushedBytes
        }
        channel.writeAndFlush(HTTPResponsePart.body(buffer)).whenComplete { [self] result in
            let resume = state.withLock { state in
                state.unflushed -= count
                if case .failure = result { state.failed = true }
                return !wasBelow && state.unflushed < Self.maxUnflushedBytes
            }
            if case .failure = result {
                stream.close()
                end()
            } else if resume {
                drain()
            }
        }
    }

    /// The stream is over: the body's closure goes on (to Hummingbird's end of the response). On the loop,
    /// after the last write was handed to the channel.
    private func end() {
        let (done, pinger) = state.withLock { state in
            state.ended = true
            return (state.done.take(), state.pinger.take())
        }
        pinger?.cancel()
        done?.resume()
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
