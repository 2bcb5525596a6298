public import Logging
public import PhotoPipeline
public import PhotoTransport

/// The web layer's settings (listening, request limits, viewers, labs, TLS), with documented
/// defaults: `PhotoServer`'s configuration holds them beside each other layer's own.
public struct WebConfiguration: Sendable {
    /// Address to listen on: an IPv4 or IPv6 address (`::` for every address). Default 127.0.0.1.
    public var host: String = "127.0.0.1"
    /// Port to listen on; 0 picks a free one. Default 8080.
    public var port: UInt16 = 8080
    /// Path prefix the page uses for its links when served under a sub-path. Default "" (the root).
    public var basePath: String = ""
    /// How work is driven. Default: `Defaults.strategy`.
    public var strategy: SchedulingStrategy = Defaults.strategy
    /// The page's static files. Default `Public` (relative to the working directory).
    public var publicDirectory = "Public"
    /// The Mustache templates. Default `Templates`.
    public var templatesDirectory = "Templates"
    /// Viewers at once; more get 503. Default 5000.
    public var maxViewers = 5_000
    /// A viewer whose event stream has been gone this long is dropped and its work cancelled. Default 30 s.
    public var viewerIdleTimeout: Duration = .seconds(30)
    /// A comment is sent on a quiet event stream this often. Default 15 s.
    public var heartbeatInterval: Duration = .seconds(15)
    /// The `retry:` the browser waits before reconnecting. Default 2 s.
    public var sseRetry: Duration = .seconds(2)
    /// How often queue counts and totals are pushed when they change. Default 250 ms.
    public var tick: Duration = .milliseconds(250)
    /// Largest request body accepted; larger gets 413. Default 16 KiB.
    public var maxRequestBodyBytes = 16 * 1024
    /// Largest request head (request line and header fields); larger gets 431. Default 16 KiB.
    public var maxHeaderBytes = 16 * 1024
    /// Longest request target (path and query); longer gets 414. Default 8 KiB.
    public var maxURLLength = 8 * 1024
    /// A connection that does not send a complete request within this is closed, however slowly
    /// it drips bytes; a response being written (an event stream) does not count. Default 30 s.
    public var idleTimeout: Duration = .seconds(30)
    /// A connection whose reader takes nothing of a response for this long is closed. Default 60 s.
    public var sendTimeout: Duration = .seconds(60)
    /// Open connections at most; past it accepting pauses until one closes. Default: derived from
    /// the open-files limit at start (see `effectiveMaxConnections`).
    public var maxConnections: Int?
    /// Open connections per client address (a trusted proxy's are not counted); past it a new
    /// connection is answered 429 and closed. A browser opens six at most. Default 64.
    public var connectionsPerClient = 64
    /// New viewers per client address per minute; more get 429 with `Retry-After`. Default 60.
    public var viewersPerMinute = 60
    /// Viewers one client (an IPv4 address, an IPv6 /64) holds at once: past it, its own viewer
    /// whose stream went away longest ago makes room, else `429`. Default nil: a quarter of
    /// `maxViewers` (`effectiveViewersPerClient`).
    public var viewersPerClient: Int?
    /// Labs one client runs at once; one more gets `429`. Default nil: a quarter of `maxLabs`, at least 1.
    public var labsPerClient: Int?
    /// Viewers following one presentation at most; one more gets `429`. Default 1000.
    public var followersPerPresentation = 1_000
    /// Followers a presentation's link admits without a new viewer's token of their address (a room
    /// behind one NAT), with their pages' shared streams and connections. Default 200.
    public var roomSize = 200
    /// Presentations one client runs at once; one more gets `429`. Default 2.
    public var presentationsPerClient = 2
    /// Shared event streams (`GET /events/shared`) one client holds open at once; one more gets
    /// `429`. A browser's tabs share one per page; default 8.
    public var sharedStreamsPerClient = 8
    /// Retries of failed photos per client address per minute; more get 429 with `Retry-After`
    /// (each photo also waits between retries, 1 s doubling to 60 s). Default 30.
    public var retriesPerMinute = 30
    /// Peers whose `X-Forwarded-For` is believed (addresses or CIDR prefixes, e.g. the compose
    /// edge's network). Default none: the client address is the peer's.
    public var trustedProxies: [String] = []
    /// A viewer that has not opened its event stream within this is forgotten. Default 10 s.
    public var viewerConnectTimeout: Duration = .seconds(10)
    /// How long a thumbnail on its way is waited for (a stop's answer, `GET /photos/N/thumbnail`).
    /// Default `Defaults.thumbnailWait`, the contract's (not a command-line setting); the test
    /// harness waits longer, since a loaded machine's rows may take more.
    public var thumbnailWait = Defaults.thumbnailWait
    /// Labs (`/lab`) running at once; one more gets 503. Default 4.
    public var maxLabs = 4
    /// Photos of the lab's browser lane (`/lab/images/...`) sent at once across all clients; one more
    /// gets 503. Each holds one photo's bytes while it trickles out at its simulated bandwidth. Default 256.
    public var maxLabImageTransfers = 256
    /// Bytes of events queued for viewers and not yet read, across all viewers, past which a new event
    /// stream gets 503 (each stream is cut off past 256 KiB unread on its own). Default 64 MiB.
    public var unsentEventsBudgetBytes = 64 * 1_048_576
    /// A lab whose page left (its lanes' event streams gone this long) is ended. Default 5 s.
    public var labIdleTimeout: Duration = .seconds(5)
    /// HTTPS with HTTP/2 and HTTP/1.1 (ALPN) from these PEM files; SIGHUP reads them again.
    /// Default nil: plain HTTP/1.1.
    public var tls: TLSFiles?
    /// With TLS: a plain-HTTP port whose every request is redirected (308) to HTTPS. Default nil: none.
    public var httpRedirectPort: UInt16?
    /// With TLS: `Strict-Transport-Security: max-age=` this many seconds. Default one year; 0 sends none.
    public var hstsMaxAge = 31_536_000
    /// HTTP/2 streams one connection may have open at once; more are refused. Default 100.
    public var maxStreams = 100
    /// HTTP/2 streams one client (an IPv4 address, an IPv6 /64) holds open at once across all of its
    /// connections; one more is refused (`REFUSED_STREAM`). Default nil: twice `maxStreams`
    /// (`effectiveStreamsPerClient`), more than a browser's one connection may open.
    public var streamsPerClient: Int?
    /// How much is logged. Default info.
    public var logLevel: Logger.Level = .info

    /// The defaults.
    public init() {}

    /// The connection cap in force: the configured one, or what the open-files limit leaves after
    /// the pipeline's own files and transfers (at least 64).
    func effectiveMaxConnections(openFilesLimit: Int) -> Int {
        maxConnections ?? max(64, openFilesLimit - 256)
    }

    /// Viewers one client holds at most: the setting, or its fair share of `maxViewers`.
    public var effectiveViewersPerClient: Int { viewersPerClient ?? ClientPlaces.fairShare(of: maxViewers) }

    /// HTTP/2 streams one client holds open at most: the setting, or twice `maxStreams`.
    public var effectiveStreamsPerClient: Int { streamsPerClient ?? 2 * maxStreams }

    /// Labs one client runs at most: the setting, or its fair share of `maxLabs`.
    public var effectiveLabsPerClient: Int { labsPerClient ?? ClientPlaces.fairShare(of: maxLabs) }

    /// Each lab lane's memory cache: the budget shared by the most lanes that may run at once, and at
    /// least 32 MiB (a lane keeps thumbnails, about 10 KB a photo, and originals only until filtered).
    func labLaneMemoryBudget(_ pipeline: PipelineConfiguration) -> Int {
        max(32 * 1_048_576, pipeline.memoryBudgetBytes / max(1, maxLabs * LabRequest.maxLanes))
    }

    /// The process-wide bounds on transfers and filtrations for the list's `pipeline`. The list may
    /// take every permit and always finds its own share free of lab work: all its transfers (`maxConcurrentTransfers`,
    /// so rows on screen never wait for a lab) and half the filter permits (at least one). Transfers
    /// hold no thread, so labs get `maxConcurrentDownloads` each on top; filtrations use the cores,
    /// so labs share the list's.
    func makeSharedBounds(_ pipeline: PipelineConfiguration) -> SharedBounds {
        let downloads = max(1, pipeline.maxConcurrentDownloads), filters = max(1, pipeline.maxConcurrentFiltrations)
        let transfers = max(downloads, pipeline.maxConcurrentTransfers)
        return SharedBounds(
            transfers: WorkPermits(capacity: transfers + downloads * maxLabs, reservedForHost: transfers),
            // With one filter permit configured, labs get a second: the list's is never theirs.
            filtrations: WorkPermits(capacity: max(2, filters), reservedForHost: max(1, filters / 2)),
            holder: .host)
    }
}
