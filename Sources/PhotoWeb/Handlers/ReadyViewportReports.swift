import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PhotoTransport
import Synchronization

/// `POST /api/viewport` (no query) taken on the event loop (`ReadyResponseHandler` reads its small
/// body there), with what the route (`ViewportHandler`) would answer: the same report taken the same
/// way (`ViewportHandler.take`), the same `204` field for field, the same count in `/metrics`.
///
/// A crowd's reports are most of its requests (every 100 ms while a visitor scrolls): through the
/// router each was a Swift task and two hops between the event loop and the cooperative pool, which
/// under a thousand visitors kept the server's threads waiting for cores (issue 36). Only a taken
/// report is answered here: a report refused (malformed, an unknown viewer, rows past the list) goes to
/// the route, which refuses it again with its reason, and `take` changed nothing before refusing;
/// so does a report inside its viewer's pace (`ReportPace`), whose answer the route holds.
final class ReadyViewportReports: ReadyResponding {
    let handler: ViewportHandler
    private let accepted: ReadyResponse
    private let meter: AnswerMeter
    /// The most body bytes read here: a report is a few dozen; a larger body is the route's.
    let bodyLimit: Int
    /// Reports taken here, for tests.
    let answered = Atomic<Int>(0)

    /// `routerFields`: what the router's middleware adds to every answer (`HTTPFields.routerMiddleware`).
    init(handler: ViewportHandler, metrics: ServerMetrics, routerFields: HTTPFields) {
        self.handler = handler
        bodyLimit = min(4 * 1024, handler.context.configuration.maxRequestBodyBytes)
        // The route's fields in its order: its own, then the middleware's.
        var fields = ViewportHandler.accepted.headers
        fields.append(contentsOf: routerFields)
        accepted = ReadyResponse(head: HTTPResponse(status: .noContent, headerFields: fields), body: nil)
        // The label `RouteMiddleware` gives the route's answer.
        meter = metrics.answerMeter(route: "POST /api/viewport", status: 204)
    }

    func readyResponse(to request: HTTPRequest, on channel: any Channel) -> ReadyResponse? { nil }

    func bodyToRead(of request: HTTPRequest) -> Int? {
        request.method == .post && request.path == "/api/viewport" ? bodyLimit : nil
    }

    func readyResponse(to request: HTTPRequest, body: ByteBuffer, on channel: any Channel) -> ReadyResponse? {
        let start = ContinuousClock.now
        // A report whose answer waits for its viewer's pace is the route's, which holds it.
        guard (try? handler.take(Data(body.readableBytesView), holding: false)) != nil else { return nil }
        answered.add(1, ordering: .relaxed)
        meter.record(since: start)
        return accepted
    }
}
