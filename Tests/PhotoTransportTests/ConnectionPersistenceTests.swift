import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
@testable import PhotoTransport

/// `ConnectionPersistence`: a request that does not keep the connection gets `Connection: close`
/// and the connection is closed after its answer (and nothing after it is handled); HTTP/1.0 with
/// keep-alive is kept and told so; HTTP/1.1 is kept.
@Suite("Connection persistence")
struct ConnectionPersistenceTests {
    /// What reaches the handlers behind it: each request head's URI.
    final class PassedOn: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        var heads: [String] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head(let head) = unwrapInboundIn(data) { heads.append(head.uri) }
        }
    }

    private func connection() throws -> (EmbeddedChannel, PassedOn) {
        let passedOn = PassedOn()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ConnectionPersistence())
        try channel.pipeline.syncOperations.addHandler(passedOn)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, passedOn)
    }

    private func request(_ channel: EmbeddedChannel, _ uri: String, version: HTTPVersion = .http1_1, connection: String? = nil) throws {
        var head = HTTPRequestHead(version: version, method: .GET, uri: uri)
        if let connection { head.headers.add(name: "Connection", value: connection) }
        try channel.writeInbound(HTTPServerRequestPart.head(head))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
    }

    /// Answers the oldest request 200 (with `Content-Length: 0`, or of unknown length) and returns
    /// the head it went out with.
    private func answerHead(_ channel: EmbeddedChannel, lengthKnown: Bool = true) throws -> HTTPResponseHead? {
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: lengthKnown ? ["Content-Length": "0"] : [:])
        try channel.writeOutbound(HTTPServerResponsePart.head(head))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        guard case .head(let written) = try channel.readOutbound(as: HTTPServerResponsePart.self) else {
            Issue.record("no head written")
            return nil
        }
        _ = try channel.readOutbound(as: HTTPServerResponsePart.self)
        return written
    }

    /// The `Connection` field of the oldest request's answer.
    private func answer(_ channel: EmbeddedChannel) throws -> String? {
        try answerHead(channel)?.headers["connection"].first
    }

    @Test func http11IsKept() throws {
        let (channel, _) = try connection()
        try request(channel, "/a")
        #expect(try answer(channel) == nil)
        #expect(channel.isActive)
    }

    @Test func connectionCloseIsSaidAndClosesAfterTheAnswer() throws {
        let (channel, passedOn) = try connection()
        try request(channel, "/a", connection: "Close")
        try request(channel, "/b")  // after the last: not handled
        #expect(passedOn.heads == ["/a"])
        #expect(channel.isActive)
        #expect(try answer(channel) == "close")
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
    }

    @Test func http10WithoutKeepAliveIsClosed() throws {
        let (channel, _) = try connection()
        try request(channel, "/a", version: .http1_0)
        #expect(try answer(channel) == "close")
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
    }

    @Test func http10WithKeepAliveIsKeptAndToldSo() throws {
        let (channel, passedOn) = try connection()
        try request(channel, "/a", version: .http1_0, connection: "keep-alive")
        try request(channel, "/b", version: .http1_0, connection: "keep-alive")
        #expect(try answer(channel) == "keep-alive")
        #expect(try answer(channel) == "keep-alive")
        channel.embeddedEventLoop.run()
        #expect(channel.isActive)
        #expect(passedOn.heads == ["/a", "/b"])
    }

    @Test func http10IsAnsweredInHTTP10AndAnAnswerOfUnknownLengthEndsTheConnection() throws {
        let (channel, _) = try connection()
        try request(channel, "/a", version: .http1_0, connection: "keep-alive")
        try request(channel, "/b", version: .http1_0, connection: "keep-alive")
        let known = try answerHead(channel)
        #expect(known?.version == .http1_0)
        #expect(known?.headers["connection"].first == "keep-alive")
        // No chunked coding in HTTP/1.0: the end of the connection ends the body.
        let unknown = try answerHead(channel, lengthKnown: false)
        #expect(unknown?.version == .http1_0)
        #expect(unknown?.headers["connection"].first == "close")
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
    }

    @Test func pipelinedAnswersGoToTheirOwnRequests() throws {
        let (channel, _) = try connection()
        try request(channel, "/a")
        try request(channel, "/b", connection: "close")
        #expect(try answer(channel) == nil)
        #expect(channel.isActive)
        #expect(try answer(channel) == "close")
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
    }
}
