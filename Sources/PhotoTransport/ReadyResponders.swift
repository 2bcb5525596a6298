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
}
