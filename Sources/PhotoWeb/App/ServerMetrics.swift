import HTTPTypes
import Metrics
import PhotoPipeline
import Prometheus
import Locking

/// The server's Prometheus metrics (swift-metrics types on a registry of this server's own, so
/// several servers in one process, as in the tests, never share counters).
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let lastStats = Locked(PipelineStats())
    /// Answer meters by route and status, made once each (a registry look-up per request is not free).
    private let answerMeters = Locked<[String: AnswerMeter]>([:])
    /// `GET /events`: one viewer's stream each.
    let ownStreams: EventStreamMeter
    /// `GET /events/shared`: several viewers' on one stream.
    let sharedStreams: EventStreamMeter

    /// The latency histograms' buckets (upper bounds): 1 ms to 10 s, as Prometheus' defaults run but
    /// from 1 ms (an answer on the event loop takes microseconds).
    static let latencyBuckets: [Duration] = [
        .milliseconds(1), .microseconds(2_500), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2_500), .seconds(5), .seconds(10),
    ]

    init() {
        factory = PrometheusMetricsFactory(registry: registry)
        let streams = MetricNameDescriptor(
            namespace: "classic_photos", metricName: "event", unitName: "streams", helpText: "Event streams open, by kind")
        let delivery = MetricNameDescriptor(
            namespace: "classic_photos", metricName: "event_delivery", unitName: "seconds",
            helpText: "From an event made by the pipeline to its bytes written on a stream, per stream it is written on")
        let registry = registry
        func meter(_ kind: String) -> EventStreamMeter {
            EventStreamMeter(
                open: registry.makeGauge(descriptor: streams, labels: [("stream", kind)]),
                delivery: registry.makeDurationHistogram(descriptor: delivery, labels: [("stream", kind)], buckets: Self.latencyBuckets))
        }
        (ownStreams, sharedStreams) = (meter("own"), meter("shared"))
    }

    /// The meter of answers to `route` with `status`, made on first use and kept.
    func answerMeter(route: String, status: Int) -> AnswerMeter {
        answerMeters.withLock { meters in
            let key = "\(status) \(route)"
            if let meter = meters[key] { return meter }
            let labels = [("route", route), ("status", String(status))]
            let meter = AnswerMeter(
                counter: Counter(label: "http_requests_total", dimensions: labels, factory: factory),
                duration: registry.makeDurationHistogram(descriptor: Self.requestDuration, labels: labels, buckets: Self.latencyBuckets))
            meters[key] = meter
            return meter
        }
    }

    private static var requestDuration: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "http", metricName: "request_duration", unitName: "seconds",
            helpText: "From a request taken to its answer given (its body written, when made as it is written), by route and status")
    }

    /// Counts one request that failed with an error of ours (answered 500).
    func recordFault() {
        Counter(label: "http_internal_errors_total", factory: factory).increment()
    }

    /// The exposition text, with the pipeline's totals, the viewers and the bytes their outboxes hold
    /// unsent brought up to date first.
    func exposition(stats: PipelineStats?, viewers: Int, unsentEventBytes: Int) -> String {
        if let stats { update(stats) }
        Gauge(label: "classic_photos_viewers", factory: factory).record(viewers)
        Gauge(label: "classic_photos_unsent_event_bytes", factory: factory).record(unsentEventBytes)
        return registry.emitToString()
    }

    private func update(_ stats: PipelineStats) {
        // The pipeline keeps totals; Prometheus counters only go up, so add what changed since the last scrape.
        let previous = lastStats.withLock { last in
            defer { last = stats }
            return last
        }
        for queue in QueueKind.allCases {
            let (now, before) = (stats[queue], previous[queue])
            let outcomes: [(String, Int, Int)] = [
                ("started", now.started, before.started), ("finished", now.finished, before.finished),
                ("failed", now.failed, before.failed), ("cancelled", now.cancelled, before.cancelled),
            ]
            for (outcome, value, old) in outcomes {
                counter("classic_photos_operations_total", [("queue", queue.rawValue), ("outcome", outcome)], by: value - old)
            }
            Gauge(label: "classic_photos_queue_operations", dimensions: [("queue", queue.rawValue), ("state", "pending")], factory: factory)
                .record(now.pending)
            Gauge(label: "classic_photos_queue_operations", dimensions: [("queue", queue.rawValue), ("state", "executing")], factory: factory)
                .record(now.executing)
        }
        counter("classic_photos_downloaded_bytes_total", [], by: Int(stats.bytesDownloaded - previous.bytesDownloaded))
        counter("classic_photos_transfers_aborted_total", [], by: stats.transfersAborted - previous.transfersAborted)
        counter("classic_photos_cache_requests_total", [("result", "hit")], by: stats.cacheHits - previous.cacheHits)
        counter("classic_photos_cache_requests_total", [("result", "miss")], by: stats.cacheMisses - previous.cacheMisses)
        counter("classic_photos_resumed_bytes_total", [], by: Int(stats.resumedBytes - previous.resumedBytes))
        Gauge(label: "classic_photos_resumable_bytes", factory: factory).record(stats.resumableBytes)
        Gauge(label: "classic_photos_cache_bytes", factory: factory).record(stats.cacheBytes)
        Gauge(label: "classic_photos_wasted_bytes", factory: factory).record(Int(stats.wastedBytes))
        Gauge(label: "classic_photos_wasted_downloads", factory: factory).record(stats.wastedDownloads)
        Gauge(label: "classic_photos_wasted_filter_seconds", factory: factory).record(stats.wastedFilterSeconds)
    }

    private func counter(_ label: String, _ dimensions: [(String, String)], by amount: Int) {
        let counter = Counter(label: label, dimensions: dimensions, factory: factory)
        if amount > 0 { counter.increment(by: amount) }
    }
}
