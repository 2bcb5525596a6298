package import HTTPTypes
package import NIOCore

/// A whole response made ahead of time: its head (all but `Date`, which is added as it is sent) and
/// its body (nil for a HEAD or a 304).
package struct ReadyResponse: Sendable {
    package var head: HTTPResponse
    package var body: ByteBuffer?

    package init(head: HTTPResponse, body: ByteBuffer?) {
        (self.head, self.body) = (head, body)
    }
}

/// Answers some requests whole, from responses made ahead of time, so that they are answered on
/// the connection's event loop (`ReadyResponseHandler`) instead of by a Swift task of the router's.
package protocol ReadyResponding: Sendable {
    /// The response to `request`, or nil to leave the request to the router. Called on an event loop
    /// for every request head: it must return at once (no waiting, no disk).
    func readyResponse(to request: HTTPRequest) -> ReadyResponse?
}
