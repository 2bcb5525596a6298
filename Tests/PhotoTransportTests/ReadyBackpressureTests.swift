import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing
@testable import PhotoTransport

/// `ReadyResponseHandler` under backpressure: while the channel is not writable it answers no new
/// request and passes on no `read()`; once writable again it answers what waited, in order (the
/// router's requests among them), and reads again.
@Suite("Ready answers under backpressure")
struct ReadyBackpressureTests {
    /// Answers GET /ready 200 with a small body; leaves every other request to the router.
    struct Responder: ReadyResponding {
        func readyResponse(to request: HTTPRequest, on channel: any Channel) -> ReadyResponse? {
            guard request.path == "/ready" else { return nil }
            return ReadyResponse(head: HTTPResponse(status: .ok), body: ByteBuffer(string: "thumbnail"))
        }
    }

    /// At the front: counts the `read()`s that reach the wire.
    final class Reads: ChannelOutboundHandler {
        typealias OutboundIn = Any
        var count = 0

        func read(context: ChannelHandlerContext) {
            count += 1
            context.read()
        }
    }

    /// What reaches the router's place: each request head's path.
    final class PassedOn: ChannelInboundHandler {
        typealias InboundIn = HTTPRequestPart
        var paths: [String] = []
        var inputClosed = false

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head(let request) = unwrapInboundIn(data) { paths.append(request.path ?? "") }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? ChannelEvent, event == .inputClosed { inputClosed = true }
        }
    }

    private func connection() throws -> (EmbeddedChannel, Reads, PassedOn) {
        let (reads, passedOn) = (Reads(), PassedOn())
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(reads)
        try channel.pipeline.syncOperations.addHandler(ReadyResponseHandler(responder: Responder()))
        try channel.pipeline.syncOperations.addHandler(passedOn)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, reads, passedOn)
    }

    private func send(_ channel: EmbeddedChannel, _ path: String) throws {
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "a", path: path)))
        try channel.writeInbound(HTTPRequestPart.end(nil))
    }

    /// The statuses written back since last asked.
    private func answers(_ channel: EmbeddedChannel) throws -> Int {
        var count = 0
        while let part = try channel.readOutbound(as: HTTPResponsePart.self) {
            if case .head = part { count += 1 }
        }
        return count
    }

    private func setWritable(_ channel: EmbeddedChannel, _ writable: Bool) {
        channel.isWritable = writable
        channel.pipeline.fireChannelWritabilityChanged()
    }

    @Test func aWritableChannelIsAnsweredAndReadAtOnce() throws {
        let (channel, reads, _) = try connection()
        try send(channel, "/ready")
        #expect(try answers(channel) == 1)
        channel.read()
        #expect(reads.count == 1)
    }

    @Test func whileNotWritableNothingIsAnsweredNorRead() throws {
        let (channel, reads, passedOn) = try connection()
        setWritable(channel, false)
        for _ in 0..<3 { try send(channel, "/ready") }
        try send(channel, "/router")
        channel.read()
        #expect(try answers(channel) == 0)
        #expect(passedOn.paths.isEmpty)
        #expect(reads.count == 0)

        setWritable(channel, true)
        #expect(try answers(channel) == 3)
        #expect(passedOn.paths == ["/router"])
        #expect(reads.count == 1)  // the read held back
    }

    @Test func answeringStopsWhenTheChannelFillsAgain() throws {
        let (channel, reads, _) = try connection()
        setWritable(channel, false)
        for _ in 0..<3 { try send(channel, "/ready") }
        channel.read()
        /// Makes the channel unwritable once the first answer is written.
        final class FillsUp: ChannelOutboundHandler {
            typealias OutboundIn = HTTPResponsePart
            func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
                if case .end = unwrapOutboundIn(data), let channel = context.channel as? EmbeddedChannel {
                    channel.isWritable = false
                }
                context.write(data, promise: promise)
            }
        }
        try channel.pipeline.syncOperations.addHandler(FillsUp(), position: .after(reads))
        setWritable(channel, true)
        #expect(try answers(channel) == 1)
        #expect(reads.count == 0)
    }

    @Test func theEndOfInputWaitsBehindTheRequestsBeforeIt() throws {
        let (channel, _, passedOn) = try connection()
        setWritable(channel, false)
        try send(channel, "/router")
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(!passedOn.inputClosed)
        setWritable(channel, true)
        #expect(passedOn.paths == ["/router"])
        #expect(passedOn.inputClosed)
    }
}
