import NIOCore
import NIOTLS

/// Behind the TLS handler: closes a connection that has not finished its handshake within
/// `timeout` (a client that opens a connection and sends nothing, or drips its hello), the TLS
/// counterpart of the HTTP/1.1 idle timeout, which starts only once a protocol is negotiated.
final class HandshakeDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) { loopBound.value.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent {
            deadline?.cancel()
            deadline = nil
        }
        context.fireUserInboundEventTriggered(event)
    }
}
