/// Timeouts and size limits of one transfer; every default is documented on its property.
public struct TransferLimits: Sendable, Equatable {
    /// Longest wait for the TCP (and TLS) connection. Default 10 s.
    public var connectTimeout: Duration
    /// Bytes per second under which the transfer counts as stalled. Default 1; 0 turns the check off.
    public var lowSpeedLimit: Int
    /// How long the transfer may stay under `lowSpeedLimit` before it fails as stalled.
    /// Default 15 s; libcurl counts whole seconds, so this is rounded up to at least 1 s.
    public var lowSpeedTime: Duration
    /// Longest time for the whole transfer, redirects included. Default nil: no limit.
    public var totalTimeout: Duration?
    /// Largest body accepted, declared or not. Default 50 MiB.
    public var maxBodyBytes: Int
    /// Redirects followed before failing with `.tooManyRedirects`. Default 5; 0 follows none.
    public var maxRedirects: Int

    /// Limits with the documented defaults, overriding any given.
    public init(
        connectTimeout: Duration = .seconds(10),
        lowSpeedLimit: Int = 1,
        lowSpeedTime: Duration = .seconds(15),
        totalTimeout: Duration? = nil,
        maxBodyBytes: Int = 50 * 1024 * 1024,
        maxRedirects: Int = 5
    ) {
        self.connectTimeout = connectTimeout
        self.lowSpeedLimit = lowSpeedLimit
        self.lowSpeedTime = lowSpeedTime
        self.totalTimeout = totalTimeout
        self.maxBodyBytes = maxBodyBytes
        self.maxRedirects = maxRedirects
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
