import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Last in an HTTP/1.1 connection's pipeline, behind every guard and in front of Hummingbird's
/// request loop: answers a request its `ReadyResponding` has a whole response for
/// on the event loop (no Swift task, no router), and passes every other request on untouched.
///
/// A request with a small body its responder reads (a viewport report) is held here, body and all,
/// and answered at its end; or, when the responder leaves it after all, passed on whole then, as if
/// it had never stopped here.
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
        /// A request whose body is read here.
        case reading(HeldRequest)
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
            if unanswered == 0, !Self.asksToClose(request) {
                if let response = responder.readyResponse(to: request, on: context.channel) {
                    current = .answering(response)
                    return
                }
                if let limit = responder.bodyToRead(of: request) {
                    current = .reading(HeldRequest(request, limit: limit, allocator: context.channel.allocator))
                    return
                }
            }
            unanswered += 1
            current = .passedOn
        case .body(let part):
            switch current {
            case .answering:
                return
            case .reading(var held):
                current = .betweenRequests  // the held body is not shared while it grows
                guard held.add(part) else {
                    // More than its responder reads: the router's, with what came so far.
                    passOn(held, context: context)
                    current = .passedOn
                    break
                }
                current = .reading(held)
                return
            case .betweenRequests, .passedOn:
                break
            }
        case .end:
            switch current {
            case .answering(let response):
                current = .betweenRequests
                response.write(on: context)
                return
            case .reading(let held):
                current = .betweenRequests
                if let response = responder.readyResponse(to: held.request, body: held.body, on: context.channel) {
                    response.write(on: context)
                    return
                }
                passOn(held, context: context)
            case .betweenRequests, .passedOn:
                current = .betweenRequests
            }
        }
        context.fireChannelRead(data)
    }

    /// Hands a request held here to the router as it came: its head and the body read so far (the
    /// caller passes on what follows).
    private func passOn(_ held: HeldRequest, context: ChannelHandlerContext) {
        unanswered += 1
        context.fireChannelRead(wrapInboundOut(.head(held.request)))
        if held.body.readableBytes > 0 {
            context.fireChannelRead(wrapInboundOut(.body(held.body)))
        }
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
