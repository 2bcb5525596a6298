public import Hummingbird

/// The built-in origin (the generated sample photos, or `--photos-dir`) as the web layer reaches it:
/// `PhotoServer` hands in one backed by SampleOrigin, so PhotoWeb never imports the origin, as it
/// reaches the cluster through `ClusterMembership`.
public protocol OriginServing: Sendable {
    /// The latencies, in milliseconds, it can simulate for one request.
    var latencyRange: ClosedRange<Int> { get }
    /// The bandwidths, in bytes per second, it can simulate for one request.
    var bandwidthRange: ClosedRange<Int> { get }
    /// Milliseconds before each response starts unless a request asks for others: a lab's by default.
    var latencyMs: Int { get }
    /// Bytes per second each response is sent at unless a request asks for others: a lab's by default.
    var bandwidth: Int { get }
    /// Whether it serves the photo list: it runs when no `--source` is given, once started.
    var servesList: Bool { get }
    /// The files of `--photos-dir` it does not list, and why.
    var skipped: [SkippedPhoto] { get }

    /// `url`, one of its photos, asking to be sent after `latencyMs` at `bandwidth` bytes per second.
    func url(_ url: String, latencyMs: Int, bandwidth: Int) -> String

    /// Photo `file` as it answers `request` (the network the request asks for, ranges); nil while it
    /// serves no list.
    func photo(_ file: String?, request: Request) async throws -> Response?
}
