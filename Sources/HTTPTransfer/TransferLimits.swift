/// Timeouts and size limits of one transfer; every default is documented on its property.
public struct TransferLimits: Sendable, Equatable {
    /// Longest wait for the TCP (and TLS) connection. Default 10 s.
    public var connectTimeout: Duration
    /// Bytes per second under which the transfer counts as stalled. Default 1; 0 turns the check off.
    public var lowSpeedLimit: Int
    /// How long the transfer may stay under `lowSpeedLimit` before it fails as stalled.
    /// Default 15 s; libcurl counts whole seconds, so this is rounded up to at least 1 s.
    public var lowSpeedTime: Duration
    /// Least average speed, in bytes per second, from the transfer's start: checked once it has run
    /// for `lowSpeedTime` and its body has begun, so an origin that drips a few bytes now and then (which never counts as
    /// stalled) cannot hold a transfer for long. Default 500; 0 turns the check off.
    public var minimumAverageSpeed: Int
    /// Longest time for the whole transfer, redirects included. Default 600 s; nil for no limit.
    public var totalTimeout: Duration?
    /// Largest body accepted, declared or not. Default 50 MiB.
    public var maxBodyBytes: Int
    /// Redirects followed before failing with `.tooManyRedirects`. Default 5; 0 follows none.
    public var maxRedirects: Int
    /// The addresses connections may be opened to. Default: public addresses only.
    public var allowedSources: AllowedSources

    /// Limits with the documented defaults, overriding any given.
    public init(
        connectTimeout: Duration = .seconds(10),
        lowSpeedLimit: Int = 1,
        lowSpeedTime: Duration = .seconds(15),
        minimumAverageSpeed: Int = 500,
        totalTimeout: Duration? = .seconds(600),
        maxBodyBytes: Int = 50 * 1024 * 1024,
        maxRedirects: Int = 5,
        allowedSources: AllowedSources = .publicOnly
    ) {
        self.connectTimeout = connectTimeout
        self.lowSpeedLimit = lowSpeedLimit
        self.lowSpeedTime = lowSpeedTime
        self.minimumAverageSpeed = minimumAverageSpeed
        self.totalTimeout = totalTimeout
        self.maxBodyBytes = maxBodyBytes
        self.maxRedirects = maxRedirects
        self.allowedSources = allowedSources
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so that a short non-zero duration never becomes 0 ("no limit" to libcurl).
    var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        return Int(seconds * 1000 + (attoseconds + perMillisecond - 1) / perMillisecond)
    }

    /// "15 s" for whole seconds, "250 ms" otherwise.
    var readable: String {
        let milliseconds = wholeMilliseconds
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
