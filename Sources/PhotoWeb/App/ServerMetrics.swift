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
    /// Request counters by route and status, made once each (a registry look-up per request is not free).
    private let requestCounters = Locked<[String: Metrics.Counter]>([:])

    init() {
        factory = PrometheusMetricsFactory(registry: registry)
    }

    /// Counts one answered request.
    func recordRequest(route: String, status: Int) {
        requestCounter(route: route, status: status).increment()
    }

    /// The counters `RouteMiddleware` counts a GET or HEAD of `path` (the route's pattern) under, 200 and
    /// 304, by method: for answers given outside the router, counted as the route's.
    func okAndNotModifiedCounters(path: String) -> [HTTPRequest.Method: ValidatedCounters] {
        Dictionary(uniqueKeysWithValues: [HTTPRequest.Method.get, .head].map { method in
            let route = "\(method) \(path)"
            return (method, (requestCounter(route: route, status: 200), requestCounter(route: route, status: 304)))
        })
    }

    /// The counter `recordRequest` adds to for `route` and `status`, for a caller that counts many.
    func requestCounter(route: String, status: Int) -> Metrics.Counter {
        requestCounters.withLock { counters in
            let key = "\(status) \(route)"
            if let counter = counters[key] { return counter }
            let counter = Counter(
                label: "http_requests_total", dimensions: [("route", route), ("status", String(status))], factory: factory)
            counters[key] = counter
            return counter
        }
    }

    /// Counts one request that failed with an error of ours (answered 500).
    func recordFault() {
        Counter(label: "http_internal_errors_total", factory: factory).increment()
    }

    /// The exposition text, with the pipeline's totals brought up to date first.
    func exposition(stats: PipelineStats?, viewers: Int) -> String {
        if let stats { update(stats) }
        Gauge(label: "classic_photos_viewers", factory: factory).record(viewers)
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
