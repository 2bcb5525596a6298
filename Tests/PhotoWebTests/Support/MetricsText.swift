import Foundation
import Testing

/// One read of `/metrics`: its samples by name and labels.
struct MetricsText {
    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    let samples: [Sample]

    /// The bucket bounds every latency histogram declares, in seconds: 1 ms to 10 s, then +Inf.
    static let bounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, .infinity]

    init(_ harness: WebHarness) async throws {
        let response = try await harness.request(.GET, "/metrics")
        guard response.status == 200 else { throw TestFailure("GET /metrics answered \(response.status)") }
        self.init(text: response.text)
    }

    /// Parses the text exposition format (one sample a line; `#` lines are comments).
    init(text: String) {
        samples = text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...])
            else { return nil }
            let key = line[..<space]
            guard let brace = key.firstIndex(of: "{") else { return Sample(name: String(key), labels: [:], value: value) }
            var labels: [String: String] = [:]
            // Label values here hold no `",` (routes and statuses), so a split on it is enough.
            for pair in key[key.index(after: brace)..<key.index(before: key.endIndex)].split(separator: "\",") {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                labels[String(pair[..<equals])] = pair[pair.index(equals, offsetBy: 2)...].trimmingCharacters(in: ["\""])
            }
            return Sample(name: String(key[..<brace]), labels: labels, value: value)
        }
    }

    /// The samples named `name`.
    func series(_ name: String) -> [Sample] {
        samples.filter { $0.name == name }
    }

    /// The value of `name` with exactly `labels`; 0 when there is none yet (a series appears at its first use).
    func value(_ name: String, _ labels: [String: String]) -> Double {
        samples.first { $0.name == name && $0.labels == labels }?.value ?? 0
    }

    /// Histogram `name`'s series: by their labels (without `le`), their buckets as (bound, count) in order.
    func histograms(_ name: String) -> [[String: String]: [(bound: Double, count: Double)]] {
        var found: [[String: String]: [(bound: Double, count: Double)]] = [:]
        for sample in series(name + "_bucket") {
            var labels = sample.labels
            guard let le = labels.removeValue(forKey: "le") else { continue }
            found[labels, default: []].append((le == "+Inf" ? .infinity : Double(le) ?? .nan, sample.value))
        }
        return found
    }

    /// Expects `buckets` to be the declared bounds, counts never falling, +Inf's the series' count.
    func expectWellFormed(_ buckets: [(bound: Double, count: Double)], _ name: String, _ labels: [String: String]) {
        #expect(buckets.map(\.bound) == Self.bounds, "\(name) \(labels)")
        #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0.count <= $1.count }, "\(name) \(labels)")
        #expect(buckets.last?.count == value(name + "_count", labels), "\(name) \(labels)")
    }
}
