import HTTPTypes
import NIOCore
import NIOHPACK
import NIOHTTP2

/// On an HTTP/2 connection, between swift-nio-http2's connection handler and its stream multiplexer:
/// a new stream whose request came whole in its first HEADERS frame (END_STREAM: every GET and HEAD)
/// and that its `ReadyResponding` has a whole response for is answered here, with HEADERS and DATA
/// frames written on the connection. Such a stream never gets a child channel, a pipeline or a Swift
/// task (a child channel per stream was 45% of the server's samples under h2load). Every other
/// stream's frames, and every frame of the connection's own, go on untouched.
///
/// What a stream answered here skips: the per-stream `RequestDeadlineGuard` (its request is complete
/// and its answer written at once; a reader that never opens its window holds only a slice of a
/// response kept anyway, within the connection's `SETTINGS_MAX_CONCURRENT_STREAMS`) and
/// `StreamsPerClient` (the stream is over in the same turn of the event loop).
/// Used on the connection's event loop only.
final class ReadyFrameHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let responder: any ReadyResponding
    /// The highest stream a HEADERS frame opened so far: a client's streams only grow, so a HEADERS
    /// frame above it opens a new one (one at or below it is a stream's trailers).
    private var lastOpened = HTTP2StreamID(0)
    /// Streams answered here and not closed yet: their later frames (WINDOW_UPDATE, RST_STREAM) end here.
    private var answered: Set<HTTP2StreamID> = []
    private var unflushed = false

    init(responder: any ReadyResponding) {
        self.responder = responder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if !answered.isEmpty, answered.contains(frame.streamID) { return }
        if case .headers(let headers) = frame.payload, frame.streamID > lastOpened {
            lastOpened = frame.streamID
            if headers.endStream, let request = HTTPRequest(requestHeaders: headers.headers),
               let response = responder.readyResponse(to: request, on: context.channel) {
                answered.insert(frame.streamID)
                write(response, on: frame.streamID, context: context)
                return
            }
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let closed = event as? StreamClosedEvent, answered.remove(closed.streamID) != nil { return }
        context.fireUserInboundEventTriggered(event)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    /// Head then body, as `ReadyResponse.write` does on a stream's channel.
    private func write(_ response: ReadyResponse, on stream: HTTP2StreamID, context: ChannelHandlerContext) {
        let headers = HTTP2Frame.FramePayload.Headers(headers: HPACKHeaders(response: response.headNow), endStream: response.body == nil)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .headers(headers))), promise: nil)
        if let body = response.body {
            let data = HTTP2Frame.FramePayload.Data(data: .byteBuffer(body), endStream: true)
            context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .data(data))), promise: nil)
        }
        unflushed = true
    }
}

extension HTTPRequest {
    /// A request from an HTTP/2 header block that swift-nio-http2 has validated (pseudo-headers first,
    /// each once, lowercase names); nil without `:method`, or for a CONNECT (its fields differ).
    init?(requestHeaders hpack: HPACKHeaders) {
        var (method, scheme, authority, path): (HTTPRequest.Method?, String?, String?, String?) = (nil, nil, nil, nil)
        var fields = HTTPFields()
        fields.reserveCapacity(hpack.count)
        for (name, value, _) in hpack {
            switch name {
            case ":method": method = HTTPRequest.Method(value)
            case ":scheme": scheme = value
            case ":authority": authority = value
            case ":path": path = value
            default:
                guard !name.hasPrefix(":"), let fieldName = HTTPField.Name(name) else { return nil }
                fields.append(HTTPField(name: fieldName, value: value))
            }
        }
        guard let method, method != .connect else { return nil }
        self.init(method: method, scheme: scheme, authority: authority, path: path, headerFields: fields)
    }
}

extension HPACKHeaders {
    /// A response's header block: `:status`, then its fields in their order.
    init(response: HTTPResponse) {
        self.init()
        reserveCapacity(response.headerFields.count + 1)
        add(name: ":status", value: String(response.status.code))
        for field in response.headerFields {
            add(name: field.name.canonicalName, value: field.value)
        }
    }
}
