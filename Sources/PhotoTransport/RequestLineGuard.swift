import NIOCore

/// Before the parser: answers 414 to a request line longer than the limit.
final class RequestLineGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let maxLength: Int
    private let progress: RequestProgress
    private var lineLength = 0
    private var refused = false

    init(maxLength: Int, progress: RequestProgress) {
        // The method, spaces and "HTTP/1.1" come on top of the target.
        self.maxLength = maxLength + 32
        self.progress = progress
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        if progress.awaitingRequestLine {
            let buffer = unwrapInboundIn(data)
            if let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
                lineLength += newline - buffer.readerIndex
                // A bare CRLF before a request is allowed; it does not start the line.
                if lineLength > 1 { progress.awaitingRequestLine = false }
                if lineLength <= maxLength { lineLength = 0 }
            } else {
                lineLength += buffer.readableBytes
            }
            if lineLength > maxLength {
                refused = true
                RawAnswer.send(status: "414 URI Too Long", error: "the request target is longer than \(maxLength - 32) bytes", on: context)
                return
            }
        }
        context.fireChannelRead(data)
    }
}

/// A whole answer written as bytes, in front of the parser (which never sees the request), then
/// the connection closed: `{"error": …}` as every other refusal.
enum RawAnswer {
    static func send(status: String, headers: String = "", error: String, on context: ChannelHandlerContext) {
        let body = RefusalBody.json(error)
        let head = "HTTP/1.1 \(status)\r\ncontent-type: application/json\r\nx-content-type-options: nosniff\r\ncontent-length: \(body.count)\r\n\(headers)connection: close\r\n\r\n"
        var buffer = context.channel.allocator.buffer(capacity: head.utf8.count + body.count)
        buffer.writeString(head)
        buffer.writeBytes(body)
        context.writeAndFlush(NIOAny(buffer)).whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
