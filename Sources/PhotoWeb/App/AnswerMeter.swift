import HTTPTypes
import Metrics
import Prometheus

/// A route's answers with one status in `/metrics`: counted (`http_requests_total`) and timed
/// (`http_request_duration_seconds`) by one call, whoever answers (the router's `RouteMiddleware`, or
/// `ReadyRoutes` on the event loop), so the count and the histogram's count move together.
final class AnswerMeter: Sendable {
    private let counter: Metrics.Counter
    private let duration: DurationHistogram

    init(counter: Metrics.Counter, duration: DurationHistogram) {
        (self.counter, self.duration) = (counter, duration)
    }

    /// Counts one answer, begun at `start` and given now.
    func record(since start: ContinuousClock.Instant) {
        counter.increment()
        duration.record(start.duration(to: .now))
    }

    /// The `route` label of an answer to `method` on the route `endpoint` (as the router writes its
    /// path: `/photos/{index}/{variant}`), whoever answers.
    static func label(_ method: HTTPRequest.Method, _ endpoint: String) -> String {
        "\(method) \(endpoint)"
    }
}
