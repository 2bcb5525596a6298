import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing
@testable import PhotoTransport

/// `ReadyResponseHandler` reading a small body on the event loop: a request its responder reads is
/// held, body and all, and answered at its end; one whose body runs past the limit, or that the
/// responder leaves at its end, reaches the router whole and in order, as if it had never stopped.
@Suite("Ready answers to requests with a body")
struct ReadyBodyTests {
    /// Reads POST /echo bodies of up to 8 bytes; answers those that say "ok", leaves the rest.
    struct Responder: ReadyResponding {
        func readyResponse(to request: HTTPRequest, on channel: any Channel) -> ReadyResponse? { nil }

        func bodyToRead(of request: HTTPRequest) -> Int? {
            request.method == .post && request.path == "/echo" ? 8 : nil
        }

        func readyResponse(to request: HTTPRequest, body: ByteBuffer, on channel: any Channel) -> ReadyResponse? {
            guard String(buffer: body) == "ok" else { return nil }
            return ReadyResponse(head: HTTPResponse(status: .noContent), body: nil)
        }
    }

    /// What reaches the router's place, each part as text.
    final class PassedOn: ChannelInboundHandler {
        typealias InboundIn = HTTPRequestPart
        var parts: [String] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let request): parts.append("head \(request.method) \(request.path ?? "")")
            case .body(let body): parts.append("body \(String(buffer: body))")
            case .end: parts.append("end")
            }
        }
    }

    private func connection() throws -> (EmbeddedChannel, PassedOn) {
        let passedOn = PassedOn()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ReadyResponseHandler(responder: Responder()))
        try channel.pipeline.syncOperations.addHandler(passedOn)
        return (channel, passedOn)
    }

    private func send(_ channel: EmbeddedChannel, _ method: HTTPRequest.Method, _ path: String, body: [String]) throws {
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: method, scheme: nil, authority: "a", path: path)))
        for part in body { try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: part))) }
        try channel.writeInbound(HTTPRequestPart.end(nil))
    }

    /// The statuses written back, in order.
    private func answers(_ channel: EmbeddedChannel) throws -> [Int] {
        var statuses: [Int] = []
        while let part = try channel.readOutbound(as: HTTPResponsePart.self) {
            if case .head(let head) = part { statuses.append(head.status.code) }
        }
        return statuses
    }

    @Test func aBodyItsResponderTakesIsAnsweredHereAndGoesNoFurther() throws {
        let (channel, passedOn) = try connection()
        try send(channel, .post, "/echo", body: ["o", "k"])
        #expect(passedOn.parts.isEmpty)
        #expect(try answers(channel) == [204])
    }

    @Test func aBodyItsResponderLeavesReachesTheRouterWhole() throws {
        let (channel, passedOn) = try connection()
        try send(channel, .post, "/echo", body: ["no", "pe"])
        #expect(passedOn.parts == ["head POST /echo", "body nope", "end"])
        #expect(try answers(channel).isEmpty)
    }

    @Test func aBodyPastTheLimitReachesTheRouterInOrder() throws {
        let (channel, passedOn) = try connection()
        try send(channel, .post, "/echo", body: ["1234", "5678", "9", "0"])
        #expect(passedOn.parts == ["head POST /echo", "body 12345678", "body 9", "body 0", "end"])
        #expect(try answers(channel).isEmpty)
    }

    @Test func otherRequestsAndOnesBehindAnUnansweredOnePassUntouched() throws {
        let (channel, passedOn) = try connection()
        try send(channel, .get, "/echo", body: [])
        // Behind the GET the router has not answered yet, a report it would take goes on too.
        try send(channel, .post, "/echo", body: ["ok"])
        #expect(passedOn.parts == ["head GET /echo", "end", "head POST /echo", "body ok", "end"])
        #expect(try answers(channel).isEmpty)
    }
}
