import Logging
import PhotoPipeline
@testable import PhotoWeb

/// A viewer registry with one channel (no photo list) that `create()` makes viewers in, for tests
/// of the registry alone.
struct TestViewers {
    let registry: ViewerRegistry
    let channel: PhotoChannel

    init(maxViewers: Int, idleTimeout: Duration, connectTimeout: Duration? = nil) {
        registry = ViewerRegistry(maxViewers: maxViewers)
        channel = PhotoChannel(
            library: PhotoLibrary(), viewers: registry,
            settings: .init(heartbeat: .seconds(15), idleTimeout: idleTimeout, connectTimeout: connectTimeout ?? idleTimeout),
            totals: ServerTotals(cluster: nil, unsent: nil), logger: Logger(label: "test"))
    }

    func create() -> ViewerSession? { registry.create(in: channel) }

    @discardableResult
    func dropIdle(now: ContinuousClock.Instant = .now) -> [ViewerSession] { registry.dropIdle(now: now) }

    func session(_ id: ViewerID) -> ViewerSession? { registry.session(id) }

    var count: Int { registry.count }
}
