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
/// answers an earlier one is passed on too. (`ConnectionPersistence`, nearer the wire, closes the
/// connection after a request that asks it, whoever answers.)
///
/// Backpressure, as NIO's `HTTPServerPipelineHandler` holds a pipelined request behind a response:
/// while the channel is not writable (NIO holds more of ours than the write buffer's high mark: the
/// client is not reading), a new request and every part after it are held here, in order, and no
/// `read()` is passed on; they are handled, and reading resumes, once the channel is writable again.
/// So a client that pipelines requests and reads nothing has at most the high mark and one answer
/// queued, and the requests of one read held. Used on the channel's event loop only.
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

    /// What came from the wire while the channel was not writable, in order, for later.
    private enum Waiting {
        case part(HTTPRequestPart)
        case inputClosed
        case error(any Error)
    }

    private let responder: any ReadyResponding
    private var current = Current.betweenRequests
    /// Requests passed on whose responses are not finished yet.
    private var unanswered = 0
    /// Parts (and the end of input, or an error) waiting while the channel cannot take more.
    private var waiting = CircularBuffer<Waiting>()
    /// A `read()` held back until the waiting parts are handled and the channel is writable.
    private var readPending = false
    /// Waiting parts are being handled (a write within may make the channel writable again, and
    /// `channelWritabilityChanged` must not start a second round inside this one).
    private var delivering = false

    init(responder: any ReadyResponding) {
        self.responder = responder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .head = part, !context.channel.isWritable {
            waiting.append(.part(part))
        } else if !waiting.isEmpty {
            waiting.append(.part(part))
        } else {
            handle(part, context: context)
        }
    }

    func read(context: ChannelHandlerContext) {
        if waiting.isEmpty, context.channel.isWritable {
            context.read()
        } else {
            readPending = true
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        deliverHeld(context: context)
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed, !waiting.isEmpty {
            waiting.append(.inputClosed)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard waiting.isEmpty else {
            waiting.append(.error(error))
            return
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        waiting.removeAll()
        readPending = false
        context.fireChannelInactive()
    }

    /// Handles the waiting parts in order while the channel takes more (a new request waits for it to
    /// be writable), then passes on the `read()` held back, if any.
    private func deliverHeld(context: ChannelHandlerContext) {
        guard !delivering else { return }
        delivering = true
        defer { delivering = false }
        while let first = waiting.first, context.channel.isActive {
            if case .part(.head) = first, !context.channel.isWritable { return }
            waiting.removeFirst()
            switch first {
            case .part(let part): handle(part, context: context)
            case .inputClosed: context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            case .error(let error): context.fireErrorCaught(error)
            }
        }
        if readPending, waiting.isEmpty, context.channel.isWritable {
            readPending = false
            context.read()
        }
    }

    /// One part of a request, in its turn: answered here, held with its body, or passed on.
    private func handle(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let request):
            if unanswered == 0 {
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
        context.fireChannelRead(wrapInboundOut(part))
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
}
