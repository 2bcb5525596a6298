import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with `100 Continue` as soon as the head is read, so a client that
/// waits for it before sending its body (curl does, for a second) is not kept waiting; the final
/// answer follows as for any request, and one that refuses the request early (413) is final too.
final class ExpectContinueHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let request) = unwrapInboundIn(data),
           request.headerFields[.expect]?.lowercased() == "100-continue" {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        context.fireChannelRead(data)
    }
}
