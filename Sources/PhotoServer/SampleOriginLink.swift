import Hummingbird
import Locking
import PhotoWeb
import SampleOrigin

/// The built-in origin as the HTTP layer sees it: the networks it simulates from the start, and
/// its photos and skipped files once `ListService` started it to serve the list.
final class SampleOriginLink: OriginServing {
    /// Lock order: a leaf.
    private let origin = Locked<SampleOrigin?>(nil)
    let latencyMs: Int
    let bandwidth: Int

    /// The origin `configuration` starts, before it serves anything.
    init(_ configuration: SampleOriginConfiguration) {
        let (seconds, attoseconds) = configuration.latency.components
        latencyMs = Int(seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
        bandwidth = configuration.bandwidth
    }

    /// The origin serves the list from now on.
    func attach(_ started: SampleOrigin) {
        origin.withLock { $0 = started }
    }

    var latencyRange: ClosedRange<Int> { SimulatedNetwork.latencyRange }
    var bandwidthRange: ClosedRange<Int> { SimulatedNetwork.bandwidthRange }
    var servesList: Bool { origin.withLock { $0 } != nil }

    var skipped: [SkippedPhoto] {
        origin.withLock { $0 }?.skipped.map { SkippedPhoto(file: $0.file, reason: $0.reason) } ?? []
    }

    func url(_ url: String, latencyMs: Int, bandwidth: Int) -> String {
        SimulatedNetwork(latency: .milliseconds(latencyMs), bandwidth: bandwidth).applied(to: url)
    }

    func photo(_ file: String?, request: Request) async throws -> Response? {
        try await origin.withLock { $0 }?.photo(file, request: request)
    }
}
