import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP2
import NIOHTTPTypes
import NIOHTTPTypesHTTP2

/// HTTP/2 on a TLS connection that negotiated `h2`, with the counterpart of every guard the
/// HTTP/1.1 path has. swift-nio-http2 applies most of them itself, configured here:
/// - the header list size (`SETTINGS_MAX_HEADER_LIST_SIZE`, checked while HPACK decodes, so a
///   header block that expands from a small table never grows past it: HPACK bombs), and
///   CONTINUATION floods (at most 5 in a row);
/// - streams open at once per connection (`SETTINGS_MAX_CONCURRENT_STREAMS`: more are refused);
/// - rapid reset (CVE-2023-44487): more than 200 RST_STREAM in 30 s, or 200 stream errors, end
///   the connection; SETTINGS / PING / PRIORITY past 200 in 30 s, outbound control frames
///   waiting past 10,000 (a flooder that does not read), empty DATA frames in a row: the same.
/// What it leaves to us:
/// - WINDOW_UPDATE floods, and closing the connection after its GOAWAY for an error (`HTTP2FrameWatch`);
/// - per stream, `RequestDeadlineGuard`: a request not complete within the idle timeout, a
///   stream whose reader never opens its window for the send timeout, a `:path` past the URL limit;
/// - per connection: no stream open for the idle timeout (GOAWAY, then closed after as long
///   again), a reader that takes nothing for the send timeout and a client that left
///   (`ConnectionEndGuard`), and
///   `--connections-per-client` (a refused connection gets GOAWAY `ENHANCE_YOUR_CALM`);
/// - per client, across its connections: streams open at once (`--streams-per-client`,
///   `StreamsPerClient`: one more is reset with `REFUSED_STREAM` before it is read).
///
/// A stream whose whole request has a ready answer (a cached thumbnail, the photo list, the page) is
/// answered by `ReadyFrameHandler` from the connection's frames before any of that per-stream set-up:
/// its request is complete and its answer written at once, so it needs no deadline and holds no place.
struct GuardedHTTP2Connection: Sendable {
    typealias Stream = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    struct Value: ServerChildChannelValue {
        /// The streams whose requests the router answers (`ReadyStreamHandler` hands them on).
        let passedOn: AsyncStream<Stream>
        let channel: any Channel
    }

    /// The HTTP/1.1 channel whose responder (and request loop) each stream is handled with.
    let http1: GuardedHTTP1Channel
    let maxConcurrentStreams: Int
    /// Streams open per client across all of its connections: one budget for the whole server.
    let streamsPerClient: StreamsPerClient
    var limits: GuardedHTTP1Channel.Limits { http1.limits }

    /// The settings and DoS limits of swift-nio-http2's handler.
    var handlerConfiguration: NIOHTTP2Handler.Configuration {
        var configuration = NIOHTTP2Handler.Configuration()
        configuration.connection.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams),
            // The HTTP/1.1 parser's limit: the head, URL included.
            HTTP2Setting(parameter: .maxHeaderListSize, value: limits.maxHeaderBytes + limits.maxURLLength),
        ]
        return configuration
    }

    /// Sets HTTP/2 up on `channel` (behind TLS); each inbound stream within its client's budget
    /// gets its codec and guard, one past it is reset.
    func configure(channel: any Channel, logger: Logger, admission: ConnectionsPerClient.Admission) -> EventLoopFuture<Value> {
        let (limits, streamsPerClient, ready) = (limits, streamsPerClient, http1.ready)
        let client: String?
        let refused: Bool
        switch admission {
        case .counted(let address): (client, refused) = (address, false)
        case .uncounted: (client, refused) = (nil, false)
        case .refused(let address): (client, refused) = (address, true)
        }
        // Streams open at once are bounded by the connection's SETTINGS: the buffer is too.
        let (passedOn, passOn) = AsyncStream.makeStream(of: Stream.self)
        channel.closeFuture.whenComplete { _ in passOn.finish() }
        return channel.eventLoop.makeCompletedFuture {
            let sync = channel.pipeline.syncOperations
            try sync.addHandler(HTTP2FrameWatch())
            try sync.addHandler(ConnectionEndGuard(sendTimeout: limits.sendTimeout))
            let idle = limits.idleTimeout
            let configuration = handlerConfiguration
            // swift-nio-http2's pieces one by one (what `configureAsyncHTTP2Pipeline` puts together),
            // so that `ReadyFrameHandler` can stand between the connection and its streams. The
            // manager hears of streams opening and closing from the handler's events.
            try sync.addHandler(NIOHTTP2Handler(
                mode: .server, connectionConfiguration: configuration.connection, streamConfiguration: configuration.stream))
            let manager = NIOHTTP2ServerConnectionManagementHandler(
                eventLoop: channel.eventLoop,
                configuration: .init(maxIdleTime: idle, maxAge: nil, maxGraceTime: idle, keepalive: nil))
            try sync.addHandler(manager)
            // The manager starts its idle timer on channelActive, long past once ALPN chose HTTP/2.
            try sync.addHandler(ChannelActiveAgain(), position: .before(manager))
            if let ready { try sync.addHandler(ReadyFrameHandler(responder: ready)) }
            try sync.addHandler(HTTP2StreamMultiplexer(
                mode: .server, channel: channel, targetWindowSize: configuration.stream.targetWindowSize,
                outboundBufferSizeHighWatermark: configuration.stream.outboundBufferSizeHighWatermark,
                outboundBufferSizeLowWatermark: configuration.stream.outboundBufferSizeLowWatermark
            ) { stream in
                stream.eventLoop.makeCompletedFuture { () throws in
                    if case .refused(let refusedSoFar) = streamsPerClient.admit(stream, client: client) {
                        Self.refuse(stream, client: client, limit: streamsPerClient.limit, refusedSoFar: refusedSoFar, logger: logger)
                        return
                    }
                    try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTPServerCodec())
                    try stream.pipeline.syncOperations.addHandler(RequestDeadlineGuard(
                        idleTimeout: idle, sendTimeout: limits.sendTimeout, progress: RequestProgress(),
                        maxPathLength: limits.maxURLLength))
                    try stream.pipeline.syncOperations.addHandler(ReadyStreamHandler(responder: ready, passOn: passOn))
                }
            })
            if refused {
                let reason = "too many connections from your address: at most \(limits.connections.limit) at once"
                GoAway.send(.enhanceYourCalm, reason: reason, on: channel)
            }
            return Value(passedOn: passedOn, channel: channel)
        }
    }

    /// Answers each stream passed on as the HTTP/1.1 channel answers a request, all at once, until
    /// the connection closes.
    func handle(value: Value, logger: Logger) async {
        await withDiscardingTaskGroup { group in
            for await stream in value.passedOn {
                group.addTask { await http1.handle(value: stream, logger: logger) }
            }
        }
    }

    /// Resets a stream past its client's budget with `REFUSED_STREAM` (written once the stream is
    /// active, before its request is read); one log line for the first refusal and every thousandth.
    private static func refuse(_ stream: any Channel, client: String?, limit: Int, refusedSoFar: Int, logger: Logger) {
        stream.writeAndFlush(HTTP2Frame.FramePayload.rstStream(.refusedStream), promise: nil)
        if refusedSoFar % 1_000 == 1 {
            logger.warning("HTTP/2 stream refused: too many open from one client", metadata: [
                "client": "\(client ?? "?")", "limit": "\(limit)", "refused so far": "\(refusedSoFar)",
            ])
        }
    }
}

/// Ends an HTTP/2 connection with GOAWAY and a reason, then closes it.
enum GoAway {
    static func send(_ code: HTTP2ErrorCode, reason: String, on channel: any Channel) {
        // Written from the tail, after the handler's preface; on the next loop turn the pipeline is complete.
        channel.eventLoop.assumeIsolated().execute {
            let frame = HTTP2Frame(
                streamID: .rootStream,
                payload: .goAway(lastStreamID: .rootStream, errorCode: code, opaqueData: channel.allocator.buffer(string: reason)))
            channel.writeAndFlush(frame).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}

/// On an HTTP/2 connection, behind TLS: closes it when its reader takes nothing of ours for
/// `timeout` (the streams' own guards close them, but a connection with no stream left would wait
/// for its GOAWAY), and when the client has closed its side. The server's channels allow half
/// closure for HTTP/1.1; HTTP/2 has none, and nothing else would close a connection whose client
/// left without a TLS close_notify: it would stay in CLOSE_WAIT, counted against its client.
final class ConnectionEndGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var stalled: StallTimer

    init(sendTimeout: TimeAmount) {
        stalled = StallTimer(timeout: sendTimeout)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        stalled.writabilityChanged(context)
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed = event as? ChannelEvent {
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stalled.cancel()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stalled.cancel()
    }
}

/// Tells the handlers after it that the channel is active, once, when added to an active channel:
/// handlers added after the TLS handshake (the HTTP/2 connection manager, whose idle timer starts
/// then) would otherwise never hear it.
final class ChannelActiveAgain: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { context.fireChannelActive() }
    }
}
