import NIOCore
import NIOHTTP2

/// In front of swift-nio-http2's handler, which rate-limits SETTINGS, PING, PRIORITY and
/// RST_STREAM but not WINDOW_UPDATE: a client may send WINDOW_UPDATE frames as it takes our bytes
/// (one per KiB we have sent, at most) plus a fixed allowance; past that the connection is ended
/// with GOAWAY `ENHANCE_YOUR_CALM`. A flood costs a frame parse each and is never earned by reading.
///
/// Reads only the 9-byte frame headers (after the 24-byte client preface); the bytes go on as they are.
final class WindowUpdateFloodGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    // What swift-nio-http2's handler writes.
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// WINDOW_UPDATE frames allowed beyond those our sent bytes earn.
    static let allowance = 1_000
    static let bytesPerUpdate = 1_024
    private static let prefaceLength = 24
    private static let headerLength = 9
    private static let windowUpdateType: UInt8 = 0x8

    /// Bytes still to skip before the next frame header (the preface, then each frame's payload).
    private var skip = prefaceLength
    /// A frame header split across reads.
    private var partialHeader: [UInt8] = []
    private var windowUpdates = 0
    private var bytesSent = 0
    private var ended = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !ended else { return }
        var view = unwrapInboundIn(data).readableBytesView[...]
        while !view.isEmpty {
            if skip > 0 {
                let taken = min(skip, view.count)
                skip -= taken
                view = view.dropFirst(taken)
                continue
            }
            let needed = Self.headerLength - partialHeader.count
            partialHeader.append(contentsOf: view.prefix(needed))
            view = view.dropFirst(needed)
            guard partialHeader.count == Self.headerLength else { break }
            skip = Int(partialHeader[0]) << 16 | Int(partialHeader[1]) << 8 | Int(partialHeader[2])
            if partialHeader[3] == Self.windowUpdateType { windowUpdates += 1 }
            partialHeader.removeAll(keepingCapacity: true)
        }
        if windowUpdates > Self.allowance + bytesSent / Self.bytesPerUpdate {
            ended = true
            GoAway.send(.enhanceYourCalm, reason: "too many WINDOW_UPDATE frames", on: context.channel)
            return
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        bytesSent += unwrapOutboundIn(data).readableBytes
        context.write(data, promise: promise)
    }
}
