import NIOCore
import NIOHTTP1

/// Whether an HTTP/1.x connection persists after each answer (RFC 9112 §9.3), for every answer on
/// it, the router's and the event loop's (`ReadyResponseHandler`) alike: it stands nearer the wire
/// than both, where a request's version is still known (`HTTPRequestHead`; the HTTP types behind it
/// have none).
///
/// A request that does not keep the connection (`Connection: close`, or HTTP/1.0 without
/// `Connection: keep-alive`) gets `Connection: close` on its answer, the connection is closed once
/// that answer is written, and nothing read after that request is handled. An HTTP/1.0 request
/// with `Connection: keep-alive` gets `Connection: keep-alive` on its answer and the connection
/// stays. An answer to HTTP/1.0 is an HTTP/1.0 answer, never chunked (§6.1): one whose length is not
/// known is ended by closing the connection. An answer that says `Connection: close` of itself (a
/// refusal) closes it too. Used on the channel's event loop only.
final class ConnectionPersistence: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// What a request read says of its answer.
    struct Asked: Equatable {
        /// The connection stays after the answer.
        var keepAlive: Bool
        var http10: Bool
        /// A HEAD: its answer has no body, whatever its length says.
        var head: Bool

        init(_ request: HTTPRequestHead) {
            keepAlive = request.isKeepAlive
            http10 = request.version.major == 1 && request.version.minor == 0
            head = request.method == .HEAD
        }
    }

    /// Requests read whose answers' heads are not written yet, oldest first.
    private var unanswered = CircularBuffer<Asked>()
    /// A request read asks to close: what comes after it is not handled.
    private var lastRequestRead = false
    /// The answer being written closes the connection at its end.
    private var closeAtEnd = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !lastRequestRead else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            unanswered.append(Asked(head))
        case .body:
            break
        case .end:
            if unanswered.last?.keepAlive == false { lastRequestRead = true }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200:
            if let asked = unanswered.popFirst() {
                Self.fit(&head, to: asked)
            }
            closeAtEnd = !head.isKeepAlive
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end where closeAtEnd:
            closeAtEnd = false
            lastRequestRead = true
            let written = promise ?? context.eventLoop.makePromise()
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            written.futureResult.whenComplete { _ in bound.value.close(promise: nil) }
            context.writeAndFlush(data, promise: written)
        case .head, .body, .end:
            context.write(data, promise: promise)
        }
    }

    /// Fits an answer's head to what its request said of the connection and its version.
    static func fit(_ head: inout HTTPResponseHead, to asked: Asked) {
        var keepAlive = asked.keepAlive
        if asked.http10 {
            head.version = .http1_0
            head.headers.remove(name: "transfer-encoding")
            let hasBody = !asked.head && head.status != .noContent && head.status != .notModified
            // No chunked coding in HTTP/1.0: a body of unknown length ends with the connection.
            if hasBody, !head.headers.contains(name: "content-length") { keepAlive = false }
        }
        if !keepAlive {
            head.headers.replaceOrAdd(name: "connection", value: "close")
        } else if asked.http10, !head.headers.contains(name: "connection") {
            head.headers.add(name: "connection", value: "keep-alive")
        }
    }
}
