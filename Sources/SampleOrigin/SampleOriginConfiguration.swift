/// How the built-in sample origin behaves: how many photos, and how slow the "network" is. The
/// server's defaults are `PhotoWeb.SampleSettings`'.
public struct SampleOriginConfiguration: Sendable, Equatable {
    /// Photos listed in the data source (a few of them deliberately mis-named).
    public var photoCount: Int
    /// Delay before each response starts, like a round trip to a distant server.
    public var latency: Duration
    /// Bytes per second each transfer is sent at.
    public var bandwidth: Int
    /// Where generated photos are kept between runs.
    public var directory: String
    /// Loopback port to listen on; 0 picks a free one.
    public var port: UInt16

    /// Creates a configuration, listening on `port` (default 0: a free one).
    public init(photoCount: Int, latency: Duration, bandwidth: Int, directory: String, port: UInt16 = 0) {
        self.photoCount = photoCount
        self.latency = latency
        self.bandwidth = bandwidth
        self.directory = directory
        self.port = port
    }
}
