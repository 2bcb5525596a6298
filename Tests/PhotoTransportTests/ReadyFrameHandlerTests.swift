import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing
@testable import PhotoTransport

/// `ReadyFrameHandler`, between an HTTP/2 connection's handler and its stream multiplexer: a new
/// stream whose whole request has a ready answer is answered from the frames; everything else goes
/// on to the multiplexer untouched (here a handler that records what reaches it).
@Suite("Ready answers from an HTTP/2 connection's frames")
struct ReadyFrameHandlerTests {
    /// Answers GET and HEAD of /ready, with "ready"; nothing else.
    struct Responder: ReadyResponding {
        func readyResponse(to request: HTTPRequest, on channel: any Channel) -> ReadyResponse? {
            guard request.path == "/ready", request.method == .get || request.method == .head else { return nil }
            var head = HTTPResponse(status: .ok)
            head.headerFields[.contentType] = "text/plain"
            head.headerFields[.contentLength] = "5"
            head.headerFields[.cacheControl] = request.headerFields[.accept] ?? "none"
            return ReadyResponse(head: head, body: request.method == .head ? nil : ByteBuffer(string: "ready"))
        }
    }

    /// What reaches the multiplexer's place.
    final class PassedOn: ChannelInboundHandler {
        typealias InboundIn = HTTP2Frame
        var frames: [HTTP2Frame] = []
        var closed: [HTTP2StreamID] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            frames.append(unwrapInboundIn(data))
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? StreamClosedEvent { closed.append(event.streamID) }
        }
    }

    private func connection() throws -> (EmbeddedChannel, PassedOn) {
        let passedOn = PassedOn()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ReadyFrameHandler(responder: Responder()))
        try channel.pipeline.syncOperations.addHandler(passedOn)
        return (channel, passedOn)
    }

    private func request(_ stream: Int, _ method: String = "GET", _ path: String = "/ready", endStream: Bool = true) -> HTTP2Frame {
        let headers = HPACKHeaders([(":method", method), (":scheme", "https"), (":authority", "localhost"), (":path", path),
                                    ("accept", "text/plain")])
        return HTTP2Frame(streamID: HTTP2StreamID(stream), payload: .headers(.init(headers: headers, endStream: endStream)))
    }

    private func written(_ channel: EmbeddedChannel) throws -> [HTTP2Frame] {
        var frames: [HTTP2Frame] = []
        while let frame = try channel.readOutbound(as: HTTP2Frame.self) { frames.append(frame) }
        return frames
    }

    @Test func aReadyGetIsAnsweredFromTheFramesAndGoesNoFurther() throws {
        let (channel, passedOn) = try connection()
        try channel.writeInbound(request(1))
        let frames = try written(channel)
        try #require(frames.count == 2)
        #expect(frames.allSatisfy { $0.streamID == HTTP2StreamID(1) })
        guard case .headers(let head) = frames[0].payload, case .data(let data) = frames[1].payload,
              case .byteBuffer(let body) = data.data else {
            Issue.record("wanted HEADERS then DATA, got \(frames)")
            return
        }
        #expect(!head.endStream && data.endStream)
        #expect(head.headers.first(name: ":status") == "200")
        #expect(head.headers.first(name: "content-type") == "text/plain")
        #expect(head.headers.first(name: "cache-control") == "text/plain", "the request's fields reach the responder")
        #expect(head.headers.first(name: "date") != nil)
        #expect(String(buffer: body) == "ready")
        #expect(passedOn.frames.isEmpty)
    }

    @Test func aReadyHeadIsOneHeadersFrameThatEndsTheStream() throws {
        let (channel, passedOn) = try connection()
        try channel.writeInbound(request(1, "HEAD"))
        let frames = try written(channel)
        try #require(frames.count == 1)
        guard case .headers(let head) = frames[0].payload else {
            Issue.record("wanted HEADERS, got \(frames)")
            return
        }
        #expect(head.endStream && head.headers.first(name: "content-length") == "5")
        #expect(passedOn.frames.isEmpty)
    }

    @Test func anythingElseGoesOnToTheStreamsUntouched() throws {
        let (channel, passedOn) = try connection()
        try channel.writeInbound(request(1, "GET", "/other"))
        try channel.writeInbound(request(3, "POST", "/ready"))
        // A request with a body to come: its stream is the multiplexer's, whatever its path.
        try channel.writeInbound(request(5, "GET", "/ready", endStream: false))
        // The connection's own frames.
        try channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: 10)))
        #expect(try written(channel).isEmpty)
        #expect(passedOn.frames.map(\.streamID) == [1, 3, 5, 0].map { HTTP2StreamID($0) })
    }

    @Test func aStreamsTrailersAreNeverTakenForANewRequest() throws {
        let (channel, passedOn) = try connection()
        try channel.writeInbound(request(5, "GET", "/other", endStream: false))
        // Frames of stream 5 after its first HEADERS, here one that looks like a ready request, and a
        // stream opened below it: both the multiplexer's.
        try channel.writeInbound(request(5))
        try channel.writeInbound(request(3))
        #expect(try written(channel).isEmpty)
        #expect(passedOn.frames.map(\.streamID) == [5, 5, 3].map { HTTP2StreamID($0) })
    }

    @Test func anAnsweredStreamsLaterFramesStopHereUntilItCloses() throws {
        let (channel, passedOn) = try connection()
        try channel.writeInbound(request(1))
        _ = try written(channel)
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .windowUpdate(windowSizeIncrement: 100)))
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .rstStream(.cancel)))
        #expect(passedOn.frames.isEmpty, "the multiplexer knows no stream 1: it would fail with noSuchStream")
        channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 1, reason: nil))
        channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 3, reason: nil))
        #expect(passedOn.closed == [HTTP2StreamID(3)], "an answered stream's close is this handler's own")
        // Once closed, its frames are swift-nio-http2's business again, as for any closed stream.
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .windowUpdate(windowSizeIncrement: 100)))
        #expect(passedOn.frames.map(\.streamID) == [HTTP2StreamID(1)])
    }
}
