package import Hummingbird
package import HummingbirdCore
package import Logging
package import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import HTTPTypes
import NIOFoundationEssentialsCompat

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
/// - a request with `Connection: close`, or HTTP/1.0 without keep-alive, is the connection's last
///   (`ConnectionPersistence`);
/// - a connection whose reader takes nothing of a response for `sendTimeout` (the buffers stay full)
///   is closed: a reader that stalls, or trickles a byte now and then, does not keep it for ever.
package struct GuardedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    package typealias Value = HTTP1Channel.Value

    package struct Limits: Sendable {
        var maxHeaderBytes: Int
        var maxURLLength: Int
        var idleTimeout: TimeAmount
        var sendTimeout: TimeAmount
        package var connections: ConnectionsPerClient

        package init(
            maxHeaderBytes: Int, maxURLLength: Int, idleTimeout: TimeAmount, sendTimeout: TimeAmount, connections: ConnectionsPerClient
        ) {
            (self.maxHeaderBytes, self.maxURLLength, self.idleTimeout, self.sendTimeout, self.connections) =
                (maxHeaderBytes, maxURLLength, idleTimeout, sendTimeout, connections)
        }

        /// Counts a new connection against its client (given back when it closes) and bounds what
        /// NIO buffers for it.
        func admit(_ channel: any Channel) throws -> ConnectionsPerClient.Admission {
            let admission = connections.admit(channel.remoteAddress)
            if case .counted(let address) = admission {
                let connections = connections
                channel.closeFuture.whenComplete { _ in connections.release(address) }
            }
            // A client that stops reading holds at most this much of ours in NIO's buffers
            // (the default is 64 KiB; an event stream behind it is cut off by its outbox).
            try channel.syncOptions?.setOption(.writeBufferWaterMark, value: .init(low: 8 * 1024, high: 16 * 1024))
            return admission
        }
    }

    let inner: HTTP1Channel
    let limits: Limits
    /// What answers requests on the event loop (`ReadyResponseHandler`), in front of the router; nil: none.
    let ready: (any ReadyResponding)?
    package var responder: HTTPChannelHandler.Responder { inner.responder }

    init(responder: @escaping HTTPChannelHandler.Responder, limits: Limits, ready: (any ReadyResponding)? = nil) {
        self.limits = limits
        self.ready = ready
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

    /// Builds the server with these limits, answering what `ready` has ready on the event loop.
    package static func builder(_ limits: Limits, ready: (any ReadyResponding)? = nil) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in GuardedHTTP1Channel(responder: responder, limits: limits, ready: ready) }
    }

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            let admission = try limits.admit(channel)
            return configure(channel: channel, logger: logger, admission: admission)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
    }

    /// The guards and Hummingbird's HTTP/1.1 handlers, at the end of the pipeline: on the bare
    /// connection, or behind TLS once `http/1.1` is negotiated.
    func configure(channel: any Channel, logger: Logger, admission: ConnectionsPerClient.Admission) -> EventLoopFuture<Value> {
        let progress = RequestProgress()
        do {
            try channel.pipeline.syncOperations.addHandler(RequestLineGuard(maxLength: limits.maxURLLength, progress: progress))
            if case .refused = admission {
                try channel.pipeline.syncOperations.addHandler(
                    TooManyConnectionsResponder(limit: limits.connections.limit, wait: .seconds(2)))
            }
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { [ready] value in
            if let ready {
                // After Hummingbird's connection state (keep-alive, a graceful shutdown), which sees its answers too.
                let state = try channel.pipeline.syncOperations.handler(type: HTTPConnectionStateHandler.self)
                try channel.pipeline.syncOperations.addHandler(ReadyResponseHandler(responder: ready), position: .after(state))
            }
            let decoder = try channel.pipeline.syncOperations.handler(type: HTTP1ToHTTPServerCodec.self)
            // Where the request's version is still known: closes after a request that asks it, whoever answers.
            try channel.pipeline.syncOperations.addHandler(ConnectionPersistence(), position: .before(decoder))
            try channel.pipeline.syncOperations.addHandler(
                RequestDeadlineGuard(idleTimeout: limits.idleTimeout, sendTimeout: limits.sendTimeout, progress: progress),
                position: .after(decoder))
            try channel.pipeline.syncOperations.addHandler(ExpectContinueHandler(), position: .after(decoder))
            return value
        }
    }

    package func handle(value: Value, logger: Logger) async {
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

/// After the parser: the idle deadline, the send deadline, 431 for an oversized head, 501 for an
/// unknown transfer coding.
final class RequestDeadlineGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let idleTimeout: TimeAmount
    private let progress: RequestProgress
    /// When the connection last became idle (nil while a request is read or answered).
    private var idleSince: NIODeadline?
    /// The one idle check scheduled: when it comes, it closes the connection if it has been idle for
    /// `idleTimeout`, else looks again then. Not cancelled and scheduled again per request (a
    /// keep-alive connection's thousands of requests a second each paid for both).
    private var deadline: Scheduled<Void>?
    private var stalled: StallTimer
    private var refused = false
    /// On an HTTP/2 stream: the longest `:path` (HTTP/1.1 has `RequestLineGuard` in front of its parser).
    private let maxPathLength: Int?

    init(idleTimeout: TimeAmount, sendTimeout: TimeAmount, progress: RequestProgress, maxPathLength: Int? = nil) {
        self.idleTimeout = idleTimeout
        self.stalled = StallTimer(timeout: sendTimeout)
        self.progress = progress
        self.maxPathLength = maxPathLength
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
        stalled.cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        stalled.cancel()
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        stalled.writabilityChanged(context)
        context.fireChannelWritabilityChanged()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if let maxPathLength, let path = head.path, path.utf8.count > maxPathLength {
                refuse(context, status: .uriTooLong, reason: "the request target is longer than \(maxPathLength) bytes")
                return
            }
            if let coding = head.headerFields[.transferEncoding]?.lowercased(), coding != "chunked", progress.isIdle {
                refuse(context, status: .notImplemented, reason: "transfer coding \(coding) is not supported")
                return
            }
        case .body:
            break
        case .end:
            progress.requestsReceived += 1
            progress.awaitingRequestLine = true
            idleSince = nil
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

    /// The connection is idle from now: it is closed after `idleTimeout` unless a request comes.
    private func arm(_ context: ChannelHandlerContext) {
        idleSince = context.eventLoop.now
        if deadline == nil { check(context, at: context.eventLoop.now + idleTimeout) }
    }

    private func check(_ context: ChannelHandlerContext, at due: NIODeadline) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(deadline: due) {
            let (handler, context) = loopBound.value
            handler.deadline = nil
            // Busy now: the next idle moment schedules the check again.
            guard let idleSince = handler.idleSince else { return }
            let due = idleSince + handler.idleTimeout
            if due <= context.eventLoop.now {
                context.close(promise: nil)
            } else {
                handler.check(context, at: due)
            }
        }
    }

    /// Answers and closes, reading nothing more from this connection.
    private func refuse(_ context: ChannelHandlerContext, status: HTTPResponse.Status, reason: String) {
        refused = true
        idleSince = nil
        deadline?.cancel()
        deadline = nil
        let body = context.channel.allocator.buffer(data: RefusalBody.json(reason))
        var head = HTTPResponse(status: status, headerFields: [.contentType: "application/json", .xContentTypeOptions: "nosniff", .contentLength: String(body.readableBytes)])
        // HTTP/2 has no `Connection` field: closing the stream is all.
        if maxPathLength == nil { head.headerFields[.connection] = "close" }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            context.close(promise: nil)
        }
    }
}

/// Closes a channel whose reader takes nothing of ours for `timeout`. Unwritable: NIO holds more of
/// ours than the write buffer's high mark (for an HTTP/2 stream, also: its flow-control window is
/// spent), because the reader takes nothing; writable again once it has taken all but the low
/// mark (a trickle of a byte a second does not get there in time). Used on the channel's event loop.
struct StallTimer {
    let timeout: TimeAmount
    private var scheduled: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    mutating func writabilityChanged(_ context: ChannelHandlerContext) {
        if context.channel.isWritable {
            cancel()
        } else if scheduled == nil {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            scheduled = context.eventLoop.scheduleTask(in: timeout) {
                loopBound.value.close(promise: nil)
            }
        }
    }

    mutating func cancel() {
        scheduled?.cancel()
        scheduled = nil
    }
}
