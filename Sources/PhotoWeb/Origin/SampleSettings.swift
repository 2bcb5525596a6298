/// The built-in sample origin's settings: `PhotoServer` starts the origin with them, and a lab's
/// network is theirs unless the lab asks for another.
public struct SampleSettings: Sendable, Equatable {
    /// Photos listed in the data source (a few of them deliberately mis-named). Default 300.
    public var photoCount = 300
    /// Delay before each response starts, like a round trip to a distant server. Default 150 ms.
    public var latency: Duration = .milliseconds(150)
    /// Bytes per second each transfer is sent at. Default 2 MB/s (a ~300 KB photo in ~150 ms).
    public var bandwidth = 2_000_000
    /// Where generated photos are kept between runs. Default: the cache folder.
    public var directory: String

    /// The defaults, the photos kept in `directory`.
    public init(directory: String) {
        self.directory = directory
    }
}
