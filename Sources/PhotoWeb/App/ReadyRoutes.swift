import HTTPTypes
import Hummingbird
import NIOCore
import PhotoTransport
import Synchronization

/// The one `ReadyResponding` the event loop's hook asks (`ReadyResponseHandler`, `ReadyStreamHandler`,
/// `ReadyFrameHandler`): a request head is matched to its route by the path the router has it under,
/// and that route's own answer function, the one its router handler calls, makes the answer or says
/// it is not ready (nil: the router answers). A HEAD gets its GET's answer without the body, as the
/// router's `autoGenerateHeadEndpoints` gives it. Answers are counted in `/metrics` under the route's
/// label (`AnswerMeter.label`), as `RouteMiddleware` counts the router's.
final class ReadyRoutes: ReadyResponding {
    /// A route whose answer can be ready: `answer` is called on the event loop for a request the
    /// route matches, with its body when the route reads one (`bodyLimit` bytes at most; nil: its
    /// head is answered alone), and must return at once (no waiting, no disk).
    struct Route: Sendable {
        let method: HTTPRequest.Method
        let path: String
        var bodyLimit: Int?
        let answer: @Sendable (HTTPRequest, Parameters, ByteBuffer?, any Channel) -> ReadyResponse?
    }

    /// A route with its path split as the router splits it, and its meters.
    private final class Entry: Sendable {
        let route: Route
        let segments: [Substring]
        let endpoint: String
        /// The meters of its usual answers, looked up once (any other: `meter`).
        let meters: [HTTPRequest.Method: [Int: AnswerMeter]]
        /// Answers made here, for tests.
        let answered = Atomic<Int>(0)

        init(_ route: Route, metrics: ServerMetrics) {
            self.route = route
            segments = route.path.split(separator: "/")
            let endpoint = RouterPath(route.path).description
            self.endpoint = endpoint
            let methods = route.method == .get ? [HTTPRequest.Method.get, .head] : [route.method]
            meters = Dictionary(uniqueKeysWithValues: methods.map { method in
                (method, Dictionary(uniqueKeysWithValues: [200, 204, 304].map {
                    ($0, metrics.answerMeter(route: AnswerMeter.label(method, endpoint), status: $0))
                }))
            })
        }
    }

    private let entries: [Entry]
    private let metrics: ServerMetrics

    init(_ routes: [Route], metrics: ServerMetrics) {
        entries = routes.map { Entry($0, metrics: metrics) }
        self.metrics = metrics
    }

    func readyResponse(to request: HTTPRequest, on channel: any Channel) -> ReadyResponse? {
        answer(request, body: nil, on: channel)
    }

    func bodyToRead(of request: HTTPRequest) -> Int? {
        guard let path = request.path else { return nil }
        return entries.first { $0.route.method == request.method && $0.route.bodyLimit != nil && Self.match($0.segments, path) != nil }?
            .route.bodyLimit
    }

    func readyResponse(to request: HTTPRequest, body: ByteBuffer, on channel: any Channel) -> ReadyResponse? {
        answer(request, body: body, on: channel)
    }

    /// The answer of the route `request` matches (one that reads a body when `body` is given), counted.
    private func answer(_ request: HTTPRequest, body: ByteBuffer?, on channel: any Channel) -> ReadyResponse? {
        let start = ContinuousClock.now
        guard let path = request.path else { return nil }
        let method = request.method == .head ? .get : request.method
        for entry in entries where entry.route.method == method && (entry.route.bodyLimit != nil) == (body != nil) {
            guard let parameters = Self.match(entry.segments, path) else { continue }
            guard var response = entry.route.answer(request, parameters, body, channel) else { return nil }
            if request.method == .head { response.body = nil }
            entry.answered.add(1, ordering: .relaxed)
            let status = response.head.status.code
            let meter = entry.meters[request.method]?[status]
                ?? metrics.answerMeter(route: AnswerMeter.label(request.method, entry.endpoint), status: status)
            meter.record(since: start)
            return response
        }
        return nil
    }

    /// How many requests to the route at `path` were answered here (for tests).
    func answered(_ path: String) -> Int {
        entries.first { $0.route.path == path }?.answered.load(ordering: .relaxed) ?? 0
    }

    /// The route's parameters when `path` (its query aside) has the route's `segments`, each a
    /// literal or a `:name` capture, as the router matches them; else nil.
    static func match(_ segments: [Substring], _ path: String) -> Parameters? {
        let asked = path.prefix { $0 != "?" }.split(separator: "/")
        guard asked.count == segments.count else { return nil }
        var captured: [(key: Substring, value: Substring)] = []
        for (segment, part) in zip(segments, asked) {
            if segment.first == ":" {
                captured.append((segment.dropFirst(), part))
            } else if segment != part {
                return nil
            }
        }
        return Parameters(captured)
    }
}
