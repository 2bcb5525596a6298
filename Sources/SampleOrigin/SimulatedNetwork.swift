import Foundation

/// The network a photo request simulates: latency before the response starts and bandwidth of its
/// body. The origin's own settings are the default; `?latency=MS&bandwidth=BYTES` on a photo's URL
/// chooses others for that request alone, so lab lanes with different networks share one origin
/// and the server's own list is not slowed by theirs.
public struct SimulatedNetwork: Sendable, Equatable {
    /// Delay before the response starts.
    public var latency: Duration
    /// Bytes per second the body is sent at.
    public var bandwidth: Int

    /// Latencies a request may ask for, in milliseconds.
    public static let latencyRange = 0...10_000
    /// Bandwidths a request may ask for, in bytes per second.
    public static let bandwidthRange = 1_000...1_000_000_000

    /// A network of `latency` and `bandwidth`.
    public init(latency: Duration, bandwidth: Int) {
        self.latency = latency
        self.bandwidth = bandwidth
    }

    /// The network a request's query asks for, each value absent taken from `defaults`; throws
    /// with the reason for a value that is not a whole number in range.
    init(query: [String: String], defaults: SimulatedNetwork) throws(SampleOriginError) {
        self = defaults
        if let text = query["latency"] {
            guard let milliseconds = Int(text), Self.latencyRange.contains(milliseconds) else {
                throw .badQuery("latency must be \(Self.latencyRange.lowerBound) to \(Self.latencyRange.upperBound) ms, got \(text)")
            }
            latency = .milliseconds(milliseconds)
        }
        if let text = query["bandwidth"] {
            guard let bytes = Int(text), Self.bandwidthRange.contains(bytes) else {
                throw .badQuery("bandwidth must be \(Self.bandwidthRange.lowerBound) to \(Self.bandwidthRange.upperBound) bytes/s, got \(text)")
            }
            bandwidth = bytes
        }
    }

    /// The latency in whole milliseconds.
    public var latencyMilliseconds: Int {
        Int(latency.components.seconds * 1_000 + latency.components.attoseconds / 1_000_000_000_000_000)
    }

    /// `url` asking for this network (its query replaced by this one's).
    public func applied(to url: String) -> String {
        let base = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        return "\(base)?latency=\(latencyMilliseconds)&bandwidth=\(bandwidth)"
    }
}
