import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Last in an HTTP/1.1 connection's pipeline, behind every guard and in front of Hummingbird's
/// request loop: answers a request its `ReadyResponding` has a whole response for
/// on the event loop (no Swift task, no router), and passes every other request on untouched.
///
/// HTTP/1.1 answers in the order of the requests: a request is answered here only when every
/// request passed on before it has its response written; one that comes while the router still
/// answers an earlier one is passed on too. A request that asks to close the connection is passed
/// on (Hummingbird closes after answering it). Used on the channel's event loop only.
final class ReadyResponseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Where the connection is in the request being read.
    private enum Current {
        case betweenRequests
        case passedOn
        case answering(ReadyResponse)
    }

    private let responder: any ReadyResponding
    private var current = Current.betweenRequests
    /// Requests passed on whose responses are not finished yet.
    private var unanswered = 0

    init(responder: any ReadyResponding) {
        self.responder = responder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if unanswered == 0, !Self.asksToClose(request), let response = responder.readyResponse(to: request, on: context.channel) {
                current = .answering(response)
                return
            }
            unanswered += 1
            current = .passedOn
        case .body:
            if case .answering = current { return }
        case .end:
            if case .answering(let response) = current {
                current = .betweenRequests
                response.write(on: context)
                return
            }
            current = .betweenRequests
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Only the router's responses pass here; this handler's own start at the next handler.
        if case .end = unwrapOutboundIn(data) { unanswered -= 1 }
        context.write(data, promise: promise)
    }

    static func asksToClose(_ request: HTTPRequest) -> Bool {
        request.headerFields[values: .connection].contains { $0.lowercased().contains("close") }
    }
}
