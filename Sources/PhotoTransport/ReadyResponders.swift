package import HTTPTypes
package import NIOCore

/// Several `ReadyResponding`s as one: each is asked in turn, and the first response wins (each
/// looks at the path first, so asking one that does not answer it costs a comparison).
package struct ReadyResponders: ReadyResponding {
    private let responders: [any ReadyResponding]

    package init(_ responders: [any ReadyResponding]) {
        self.responders = responders
    }

    package func readyResponse(to request: HTTPRequest, on channel: any Channel) -> ReadyResponse? {
        for responder in responders {
            if let response = responder.readyResponse(to: request, on: channel) { return response }
        }
        return nil
    }

    /// The first responder's that reads `request`'s body.
    package func bodyToRead(of request: HTTPRequest) -> Int? {
        responders.lazy.compactMap { $0.bodyToRead(of: request) }.first
    }

    /// The answer of the first responder that reads `request`'s body.
    package func readyResponse(to request: HTTPRequest, body: ByteBuffer, on channel: any Channel) -> ReadyResponse? {
        responders.first { $0.bodyToRead(of: request) != nil }?.readyResponse(to: request, body: body, on: channel)
    }
}
