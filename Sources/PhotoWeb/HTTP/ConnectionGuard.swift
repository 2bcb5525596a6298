import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import HTTPTypes

/// The per-connection limits NIO's parser does not apply by itself, in front of Hummingbird's
/// HTTP/1.1 channel:
/// - a request line longer than `maxURLLength` is answered 414 before the parser buffers it;
/// - a request head past `maxHeaderBytes` (the parser's limit) is answered 431, not 400;
/// - a connection that does not deliver a complete request within `idleTimeout` is closed,
///   however slowly it drips bytes (slowloris); a response being written does not count, so an
///   open event stream is never idle;
/// - a `Transfer-Encoding` other than `chunked` is answered 501 (nothing after it is read);
/// - a connection past its client's `--connections-per-client` is answered 429 and closed;
/// - `Expect: 100-continue` is answered `100 Continue` at once (`ExpectContinueHandler`);
/// - a connection whose reader takes nothing of a response for `sendTimeout` (the buffers stay full)
///   is closed: a reader that stalls, or trickles a byte now and then, does not keep it for ever.
struct GuardedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    struct Limits: Sendable {
        var maxHeaderBytes: Int
        var maxURLLength: Int
        var idleTimeout: TimeAmount
        var sendTimeout: TimeAmount
        var connections: ConnectionsPerClient
    }

    let inner: HTTP1Channel
    let limits: Limits
    var responder: HTTPChannelHandler.Responder { inner.responder }

    init(responder: @escaping HTTPChannelHandler.Responder, limits: Limits) {
        self.limits = limits
        var configuration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [],
            httpDecoderConfiguration: .init(
                // The URL counts against the list too: a head is at most both limits together.
                maxHeaderFieldSize: max(limits.maxHeaderBytes, limits.maxURLLength),
                maxHeaderListSize: limits.maxHeaderBytes + limits.maxURLLength,
                maxHeaderFieldCount: 1_000))
        configuration.idleTimeout = nil
        inner = HTTP1Channel(responder: responder, configuration: configuration)
    }

    /// Builds the server with these limits.
    static func builder(_ limits: Limits) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in GuardedHTTP1Channel(responder: responder, limits: limits) }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let progress = RequestProgress()
        let admission = limits.connections.admit(channel.remoteAddress)
        switch admission {
        case .counted(let address):
            let connections = limits.connections
            channel.closeFuture.whenComplete { _ in connections.release(address) }
        case .uncounted:
            break
        case .refused:
            do {
                try channel.pipeline.syncOperations.addHandler(
                    TooManyConnectionsResponder(limit: limits.connections.limit, wait: .seconds(2)), position: .first)
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        do {
            // A client that stops reading holds at most this much of ours in NIO's buffers
            // (the default is 64 KiB; an event stream behind it is cut off by its outbox).
            try channel.syncOptions?.setOption(.writeBufferWaterMark, value: .init(low: 8 * 1024, high: 16 * 1024))
            try channel.pipeline.syncOperations.addHandler(
                RequestLineGuard(maxLength: limits.maxURLLength, progress: progress), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let decoder = try channel.pipeline.syncOperations.handler(type: HTTP1ToHTTPServerCodec.self)
            try channel.pipeline.syncOperations.addHandler(
                RequestDeadlineGuard(idleTimeout: limits.idleTimeout, sendTimeout: limits.sendTimeout, progress: progress),
                position: .after(decoder))
            try channel.pipeline.syncOperations.addHandler(ExpectContinueHandler(), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Where the connection is between requests; shared by the two guards of one connection (both
/// run on its event loop).
final class RequestProgress {
    /// Complete requests received and responses finished: equal means nothing is in flight.
    var requestsReceived = 0
    var responsesFinished = 0
    /// Whether the bytes arriving start a request line.
    var awaitingRequestLine = true
    var isIdle: Bool { requestsReceived == responsesFinished }
}

/// Before the parser: answers 414 to a request line longer than the limit.
final class RequestLineGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let maxLength: Int
    private let progress: RequestProgress
    private var lineLength = 0
    private var refused = false

    init(maxLength: Int, progress: RequestProgress) {
        // The method, spaces and "HTTP/1.1" come on top of the target.
        self.maxLength = maxLength + 32
        self.progress = progress
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        if progress.awaitingRequestLine {
            let buffer = unwrapInboundIn(data)
            if let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
                lineLength += newline - buffer.readerIndex
                // A bare CRLF before a request is allowed; it does not start the line.
                if lineLength > 1 { progress.awaitingRequestLine = false }
                if lineLength <= maxLength { lineLength = 0 }
            } else {
                lineLength += buffer.readableBytes
            }
            if lineLength > maxLength {
                refused = true
                RawAnswer.send(status: "414 URI Too Long", error: "the request target is longer than \(maxLength - 32) bytes", on: context)
                return
            }
        }
        context.fireChannelRead(data)
    }
}

/// A whole answer written as bytes, in front of the parser (which never sees the request), then
/// the connection closed: `{"error": …}` as every other refusal.
enum RawAnswer {
    static func send(status: String, headers: String = "", error: String, on context: ChannelHandlerContext) {
        let body = EventPayloads.json(EventPayloads.Failure(error: error))
        let head = "HTTP/1.1 \(status)\r\ncontent-type: application/json\r\nx-content-type-options: nosniff\r\n"
            + "content-length: \(body.count)\r\n\(headers)connection: close\r\n\r\n"
        var buffer = context.channel.allocator.buffer(capacity: head.utf8.count + body.count)
        buffer.writeString(head)
        buffer.writeBytes(body)
        context.writeAndFlush(NIOAny(buffer)).whenComplete { _ in
            context.close(promise: nil)
        }
    }
}

/// After the parser: the idle deadline, the send deadline, 431 for an oversized head, 501 for an
/// unknown transfer coding.
final class RequestDeadlineGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let idleTimeout: TimeAmount
    private let sendTimeout: TimeAmount
    private let progress: RequestProgress
    private var deadline: Scheduled<Void>?
    /// Armed while the connection is not writable: our bytes wait for a reader that takes none.
    private var stalled: Scheduled<Void>?
    private var refused = false

    init(idleTimeout: TimeAmount, sendTimeout: TimeAmount, progress: RequestProgress) {
        self.idleTimeout = idleTimeout
        self.sendTimeout = sendTimeout
        self.progress = progress
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        stalled?.cancel()
        stalled = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        stalled?.cancel()
        stalled = nil
        context.fireChannelInactive()
    }

    /// Unwritable: NIO holds more of ours than the write buffer's high mark, because the reader takes
    /// nothing; writable again once it has taken all but the low mark (a trickle of a byte a second
    /// does not get there in time).
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stalled?.cancel()
            stalled = nil
        } else if stalled == nil {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            stalled = context.eventLoop.scheduleTask(in: sendTimeout) {
                loopBound.value.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if let coding = head.headerFields[.transferEncoding]?.lowercased(), coding != "chunked", progress.isIdle {
                refuse(context, status: .notImplemented, reason: "transfer coding \(coding) is not supported")
                return
            }
        case .body:
            break
        case .end:
            progress.requestsReceived += 1
            progress.awaitingRequestLine = true
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            progress.responsesFinished += 1
            if progress.isIdle { arm(context) }
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let parserError = error as? HTTPParserError, parserError == .headerOverflow, progress.isIdle, !refused {
            refuse(context, status: .init(code: 431, reasonPhrase: "Request Header Fields Too Large"),
                   reason: "the request head is larger than the server accepts")
            return
        }
        context.fireErrorCaught(error)
    }

    private func arm(_ context: ChannelHandlerContext) {
        deadline?.cancel()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: idleTimeout) {
            loopBound.value.close(promise: nil)
        }
    }

    /// Answers and closes, reading nothing more from this connection.
    private func refuse(_ context: ChannelHandlerContext, status: HTTPResponse.Status, reason: String) {
        refused = true
        deadline?.cancel()
        let body = context.channel.allocator.buffer(data: EventPayloads.json(EventPayloads.Failure(error: reason)))
        let head = HTTPResponse(status: status, headerFields: [
            .contentType: "application/json", .xContentTypeOptions: "nosniff", .contentLength: String(body.readableBytes),
            .connection: "close",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
