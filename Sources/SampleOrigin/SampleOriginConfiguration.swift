/// How the built-in sample origin behaves: how many photos, and how slow the "network" is, with
/// the server's defaults.
public struct SampleOriginConfiguration: Sendable, Equatable {
    /// Photos listed in the data source (a few of them deliberately mis-named). Default 300.
    public var photoCount: Int
    /// Delay before each response starts, like a round trip to a distant server. Default 150 ms.
    public var latency: Duration
    /// Bytes per second each transfer is sent at. Default 2 MB/s (a ~300 KB photo in ~150 ms).
    public var bandwidth: Int
    /// Where generated photos are kept between runs.
    public var directory: String
    /// Loopback port to listen on; 0 picks a free one.
    public var port: UInt16

    /// Creates a configuration keeping its photos in `directory`, listening on `port` (default 0: a free one).
    public init(
        photoCount: Int = 300, latency: Duration = .milliseconds(150), bandwidth: Int = 2_000_000, directory: String,
        port: UInt16 = 0
    ) {
        self.photoCount = photoCount
        self.latency = latency
        self.bandwidth = bandwidth
        self.directory = directory
        self.port = port
    }
}
