import Foundation
import Testing

/// The Grafana dashboard in `deploy/grafana/` (issue 61): it parses, and every query names metrics
/// the server's `/metrics` carries, quantiles taken over buckets by `le`, so a renamed metric or a
/// typo shows here rather than as an empty panel.
@Suite("The Grafana dashboard reads metrics that exist", .timeLimit(.minutes(2)))
struct MetricsDashboardTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/grafana/classic-photos.json")

    /// Every query of the dashboard: its panels' targets and its variables'.
    static func queries() throws -> [String] {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let panels = try #require(json["panels"] as? [[String: Any]])
        #expect(!panels.isEmpty)
        var queries: [String] = []
        for panel in panels {
            let targets = try #require(panel["targets"] as? [[String: Any]], "panel \(panel["title"] ?? "?") has no targets")
            for target in targets {
                queries.append(try #require(target["expr"] as? String, "a target of \(panel["title"] ?? "?") has no expr"))
            }
        }
        let variables = (json["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? []
        queries += variables.compactMap { $0["definition"] as? String }
        return queries
    }

    /// The metric names `query` reads (the server's are `http_…` and `classic_photos_…`).
    static func metrics(in query: String) -> Set<String> {
        Set(query.matches(of: /\b(?:http|classic_photos)_[a-z_]+\b/).map { String($0.output) })
    }

    @Test func everyQueryNamesMetricsTheServerExposes() async throws {
        let queries = try Self.queries()
        let named = queries.reduce(into: Set<String>()) { $0.formUnion(Self.metrics(in: $1)) }

        // It shows what issue 61 asks for: answer times, delivery lag, streams, viewers, bytes queued
        #expect(named.isSuperset(of: [
            "http_request_duration_seconds_bucket", "classic_photos_event_delivery_seconds_bucket",
            "classic_photos_event_streams", "classic_photos_viewers", "classic_photos_unsent_event_bytes",
        ]))
        #expect(queries.contains { $0.contains("histogram_quantile(0.5,") && $0.contains("http_request_duration_seconds_bucket") })
        #expect(queries.contains { $0.contains("histogram_quantile(0.99,") && $0.contains("http_request_duration_seconds_bucket") })
        #expect(queries.contains { $0.contains("histogram_quantile(0.99,") && $0.contains("classic_photos_event_delivery_seconds_bucket") })

        // Each quantile is over a histogram's buckets summed by `le`, and brackets balance
        for query in queries {
            if query.contains("histogram_quantile") {
                #expect(query.contains("sum by (le,") && query.contains("_bucket{"), "\(query)")
            }
            for (open, close) in [("(", ")"), ("{", "}"), ("[", "]")] {
                #expect(query.count { String($0) == open } == query.count { String($0) == close }, "\(query)")
            }
        }

        // And every name is one the server's /metrics carries
        try await WebHarness.with(photoCount: 12) { harness in
            let exposed = Set(try await MetricsText(harness).samples.map(\.name))
            #expect(named.subtracting(exposed).isEmpty, "not in /metrics: \(named.subtracting(exposed).sorted())")
        }
    }
}
