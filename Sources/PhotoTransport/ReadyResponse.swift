package import HTTPTypes
package import NIOCore
import NIOHTTPTypes

/// A whole response made ahead of time: its head (all but `Date`, which is added as it is sent) and
/// its body (nil for a HEAD or a 304).
package struct ReadyResponse: Sendable {
    package var head: HTTPResponse
    package var body: ByteBuffer?

    package init(head: HTTPResponse, body: ByteBuffer?) {
        (self.head, self.body) = (head, body)
    }

    /// Its head as it is sent now: `Date` added as its last field, as Hummingbird adds it.
    var headNow: HTTPResponse {
        var head = head
        head.headerFields[.date] = HTTPDate.now
        return head
    }

    /// Writes it as Hummingbird writes a response with its body in one buffer: head, body, end;
    /// on `context`'s event loop, from a handler whose outbound type is `HTTPResponsePart`.
    func write(on context: ChannelHandlerContext) {
        context.write(NIOAny(HTTPResponsePart.head(headNow)), promise: nil)
        if let body { context.write(NIOAny(HTTPResponsePart.body(body)), promise: nil) }
        context.writeAndFlush(NIOAny(HTTPResponsePart.end(nil)), promise: nil)
    }
}

/// Answers some requests whole, from responses made ahead of time, so that they are answered on
/// the connection's event loop (`ReadyResponseHandler`) instead of by a Swift task of the router's.
package protocol ReadyResponding: Sendable {
    /// The response to `request`, which came on `channel` (an HTTP/2 stream's channel or the
    /// connection's), or nil to leave the request to the router. Called on the channel's event loop
    /// for every request head: it must return at once (no waiting, no disk).
    func readyResponse(to request: HTTPRequest, on channel: any Channel) -> ReadyResponse?

    /// For a request with a body (HTTP/1.1 only): the most body bytes to read on the event loop and
    /// answer it there with `readyResponse(to:body:on:)`, or nil to leave it to the router. Called
    /// for every head `readyResponse(to:on:)` left; it must return at once.
    func bodyToRead(of request: HTTPRequest) -> Int?

    /// The response to `request` with its whole `body` (no more than `bodyToRead` said), or nil to
    /// hand the request, body and all, to the router after all (which then answers it as if it had
    /// come straight there: nothing may have been changed). Same rules as `readyResponse(to:on:)`.
    func readyResponse(to request: HTTPRequest, body: ByteBuffer, on channel: any Channel) -> ReadyResponse?
}

extension ReadyResponding {
    /// None: requests with bodies go to the router.
    package func bodyToRead(of request: HTTPRequest) -> Int? { nil }

    package func readyResponse(to request: HTTPRequest, body: ByteBuffer, on channel: any Channel) -> ReadyResponse? { nil }
}
