import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Last in an HTTP/2 stream's pipeline, behind its guards, until its request's head arrives: a
/// request its `ReadyResponding` has a whole response for is answered on the event loop, and the
/// stream never gets a `NIOAsyncChannel` nor a Swift task; any other request's stream is wrapped in
/// a `NIOAsyncChannel` then, handed to the connection's request loop (`passOn`), and its request
/// passed on to it untouched. A request with a small body its responder reads (a viewport report)
/// is held until its end and answered, or handed on then, body and all, as if it had never stopped
/// here. Used on the stream's event loop only.
final class ReadyStreamHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private enum Current {
        case awaitingHead
        case passedOn
        case answering(ReadyResponse)
        /// A request whose body is read here (`ReadyResponding.bodyToRead`).
        case reading(HeldRequest)
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
            if let limit = responder?.bodyToRead(of: request) {
                current = .reading(HeldRequest(request, limit: limit, allocator: context.channel.allocator))
                return
            }
            handOn(request, body: nil, context: context)
        case (.reading(var held), .body(let part)):
            current = .awaitingHead  // the held body is not shared while it grows
            guard held.add(part) else {
                // More than its responder reads: the router's, with what came so far.
                handOn(held.request, body: held.body, context: context)
                if case .passedOn = current { context.fireChannelRead(data) }
                return
            }
            current = .reading(held)
        case (.reading(let held), .end):
            if let response = responder?.readyResponse(to: held.request, body: held.body, on: context.channel) {
                current = .answered
                response.write(on: context)
                return
            }
            handOn(held.request, body: held.body, context: context)
            if case .passedOn = current { context.fireChannelRead(data) }
        case (.answering(let response), .end):
            current = .answered
            response.write(on: context)
        case (.answering, _), (.answered, _), (.awaitingHead, _), (.reading, _):
            // A ready answer's request body, or parts after it: nobody reads them.
            break
        }
    }

    /// Wraps the stream in a `NIOAsyncChannel` for the connection's request loop and passes it the
    /// request's head and the body read here so far (the caller passes on what follows); closes the
    /// stream if it cannot be wrapped.
    private func handOn(_ request: HTTPRequest, body: ByteBuffer?, context: ChannelHandlerContext) {
        do {
            let stream = try GuardedHTTP2Connection.Stream(wrappingChannelSynchronously: context.channel)
            current = .passedOn
            passOn.yield(stream)
            context.fireChannelRead(wrapInboundOut(.head(request)))
            if let body, body.readableBytes > 0 {
                context.fireChannelRead(wrapInboundOut(.body(body)))
            }
        } catch {
            current = .answered
            context.close(promise: nil)
        }
    }
}
