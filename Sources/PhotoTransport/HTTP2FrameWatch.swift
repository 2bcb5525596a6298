import NIOCore
import NIOHTTP2

/// In front of swift-nio-http2's handler, reading frame headers both ways:
/// - WINDOW_UPDATE floods, which it does not rate-limit (it does SETTINGS, PING, PRIORITY and
///   RST_STREAM): a client may send WINDOW_UPDATEs as it takes our bytes (one per KiB sent) plus a
///   fixed allowance; past that the connection ends with GOAWAY `ENHANCE_YOUR_CALM`;
/// - its GOAWAY with an error code (a flood it cut off, a protocol or HPACK error): it writes the
///   frame and reports the error, leaving the close to the pipeline's owner, so the connection is
///   closed here once the frame is written, not left to the attacker.
final class HTTP2FrameWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    // What swift-nio-http2's handler writes.
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// WINDOW_UPDATE frames allowed beyond those our sent bytes earn.
    static let allowance = 1_000
    static let bytesPerUpdate = 1_024
    private static let windowUpdate: UInt8 = 0x8
    private static let goAway: UInt8 = 0x7

    private var inbound = FrameWalker(skipping: FrameWalker.clientPrefaceLength)
    private var outbound = FrameWalker(skipping: 0)
    private var windowUpdates = 0
    private var bytesSent = 0
    private var ended = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !ended else { return }
        var updates = 0
        inbound.walk(unwrapInboundIn(data).readableBytesView, onFrame: { type, _ in
            if type == Self.windowUpdate { updates += 1 }
            return 0
        }, onPayload: { _, _ in })
        windowUpdates += updates
        if windowUpdates > Self.allowance + bytesSent / Self.bytesPerUpdate {
            ended = true
            GoAway.send(.enhanceYourCalm, reason: "too many WINDOW_UPDATE frames", on: context.channel)
            return
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .byteBuffer(let buffer) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        bytesSent += buffer.readableBytes
        var endsConnection = false
        // GOAWAY's payload: the last stream id (4 bytes), then the error code (4 bytes).
        outbound.walk(buffer.readableBytesView, onFrame: { type, _ in type == Self.goAway ? 8 : 0 }, onPayload: { _, payload in
            endsConnection = endsConnection || payload[4...].contains { $0 != 0 }
        })
        guard endsConnection else {
            context.write(data, promise: promise)
            return
        }
        let written = promise ?? context.eventLoop.makePromise()
        context.write(data, promise: written)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        written.futureResult.whenComplete { _ in loopBound.value.close(promise: nil) }
    }
}
