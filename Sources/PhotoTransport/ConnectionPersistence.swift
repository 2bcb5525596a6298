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
/// stays. An answer that says `Connection: close` of itself (a refusal) closes it too.
/// Used on the channel's event loop only.
final class ConnectionPersistence: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// What a request read says of the connection after its answer.
    enum Persistence {
        case keepAlive
        /// HTTP/1.0 with `Connection: keep-alive`: its answer says so too.
        case keepAliveAsked
        case close
    }

    /// Requests read whose answers' heads are not written yet, oldest first.
    private var unanswered = CircularBuffer<Persistence>()
    /// A request read asks to close: what comes after it is not handled.
    private var lastRequestRead = false
    /// The answer being written closes the connection at its end.
    private var closeAtEnd = false

    static func persistence(of head: HTTPRequestHead) -> Persistence {
        guard head.isKeepAlive else { return .close }
        return head.version.major == 1 && head.version.minor == 0 ? .keepAliveAsked : .keepAlive
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !lastRequestRead else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            unanswered.append(Self.persistence(of: head))
        case .body:
            break
        case .end:
            if unanswered.last == .close { lastRequestRead = true }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200:
            switch unanswered.popFirst() {
            case .close:
                head.headers.replaceOrAdd(name: "connection", value: "close")
            case .keepAliveAsked where !head.headers.contains(name: "connection"):
                head.headers.add(name: "connection", value: "keep-alive")
            case .keepAlive, .keepAliveAsked, nil:
                break
            }
            closeAtEnd = !head.isKeepAlive
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end where closeAtEnd:
            closeAtEnd = false
            lastRequestRead = true
            let written = promise ?? context.eventLoop.makePromise()
            written.futureResult.whenComplete { _ in context.close(promise: nil) }
            context.writeAndFlush(data, promise: written)
        case .head, .body, .end:
            context.write(data, promise: promise)
        }
    }
}
