import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Last in an HTTP/2 stream's pipeline, behind its guards, until its request's head arrives: a
/// request its `ReadyResponding` has a whole response for is answered on the event loop, and the
/// stream never gets a `NIOAsyncChannel` nor a Swift task; any other request's stream is wrapped in
/// a `NIOAsyncChannel` then, handed to the connection's request loop (`passOn`), and its request
/// passed on to it untouched. Used on the stream's event loop only.
final class ReadyStreamHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private enum Current {
        case awaitingHead
        case passedOn
        case answering(ReadyResponse)
        case answered
    }

    private let responder: (any ReadyResponding)?
    private let passOn: AsyncStream<GuardedHTTP2Connection.Stream>.Continuation
    private var current = Current.awaitingHead

    init(responder: (any ReadyResponding)?, passOn: AsyncStream<GuardedHTTP2Connection.Stream>.Continuation) {
        (self.responder, self.passOn) = (responder, passOn)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (current, unwrapInboundIn(data)) {
        case (.passedOn, _):
            context.fireChannelRead(data)
        case (.awaitingHead, .head(let request)):
            if let response = responder?.readyResponse(to: request, on: context.channel) {
                current = .answering(response)
                return
            }
            do {
                let stream = try GuardedHTTP2Connection.Stream(wrappingChannelSynchronously: context.channel)
                current = .passedOn
                passOn.yield(stream)
                context.fireChannelRead(data)
            } catch {
                current = .answered
                context.close(promise: nil)
            }
        case (.answering(let response), .end):
            current = .answered
            response.write(on: context)
        case (.answering, _), (.answered, _), (.awaitingHead, _):
            // A ready answer's request body, or parts after it: nobody reads them.
            break
        }
    }
}
