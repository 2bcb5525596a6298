import HTTPTransfer
import PhotoCodecs
import PhotoPipeline
import PhotoWeb
import PhotoServer
import SampleOrigin

extension NumberSetting {
    var summary: String {
        switch self {
        case .port: "Port to listen on, 0 for any free one."
        case .prefetch: "Rows fetched beyond each edge of the viewport with --strategy prefetch."
        case .downloads: "Prefetch and background downloads at once, across all viewers (rows on screen do not wait for these)."
        case .maxTransfers: "Transfers at once, across all viewers, rows on screen included (at least --downloads)."
        case .filters: "Filtrations at once, across all viewers."
        case .memoryBudgetMb: "Memory cache budget."
        case .memoryLimitMb: "Resident memory past which all work is cancelled and the image cache emptied."
        case .thumbnailHeight: "Thumbnail height."
        case .photoCount: "Photos in the built-in sample origin."
        case .sampleLatencyMs: "Sample origin latency per transfer."
        case .sampleBandwidth: "Sample origin bandwidth per transfer."
        case .connectTimeout: "Time to wait for a connection to an origin."
        case .stallTimeout: "Time a download may stall before it fails."
        case .minDownloadSpeed: "Least average download speed, judged once --stall-timeout has passed (0: no check)."
        case .downloadTimeout: "Time a download (the data source's too) may take in all."
        case .maxMegapixels: "Largest image accepted."
        case .maxDownloadMb: "Largest download accepted."
        case .maxViewers: "Viewers at once; more get 503."
        case .diskBudgetMb: "Disk cache budget for originals and sepia results."
        case .maxHeaderBytes: "Largest request head (request line and headers); more gets 431."
        case .maxUrlLength: "Longest request target; longer gets 414."
        case .maxBodyBytes: "Largest request body; larger gets 413."
        case .idleTimeout: "Time a connection may take to send a complete request before it is closed."
        case .sendTimeout: "Time a connection may go without its reader taking any of a response before it is closed."
        case .maxConnections: "Open connections at most; accepting pauses past it."
        case .connectionsPerClient: "Open connections per client address; more are answered 429 and closed."
        case .viewersPerMinute: "New viewers per client address per minute; more get 429."
        case .retriesPerMinute: "Retries of failed photos per client address per minute; more get 429."
        case .viewerConnectTimeout: "Time a new viewer has to open its event stream before it is forgotten."
        case .maxLabs: "Labs (/lab) running at once; one more gets 503."
        case .viewersPerClient:
            "Viewers one client (an IPv4 address, an IPv6 /64) holds at once; past it its viewer whose stream went away longest ago makes room, else 429."
        case .followersPerPresentation:
            "Viewers following one presentation (/?follow=CODE) at most; one more gets 429."
        case .roomSize:
            "Followers a presentation's link admits without counting them against their address's --viewers-per-minute (a room behind one NAT); past it a follow link is a new viewer like any page. A room's followers also bring their address their pages' shared streams and connections."
        case .presentationsPerClient: "Presentations one client (an IPv4 address, an IPv6 /64) runs at once; one more gets 429."
        case .labsPerClient: "Labs one client (an IPv4 address, an IPv6 /64) runs at once; one more gets 429."
        case .sharedStreamsPerClient:
            "Shared event streams (GET /events/shared) one client (an IPv4 address, an IPv6 /64) holds open at once; one more gets 429."
        case .maxLabImageTransfers: "Photos of the lab's browser lane (/lab/images) sent at once; one more gets 503."
        case .unsentEventsBudgetMb: "Events queued for viewers and not yet read, across all viewers, past which a new event stream gets 503."
        case .httpRedirectPort: "With TLS: a plain-HTTP port that redirects every request to HTTPS."
        case .hstsMaxAge: "With TLS: Strict-Transport-Security max-age, 0 for none."
        case .maxStreams: "HTTP/2 streams open at once per connection; more are refused."
        case .streamsPerClient:
            "HTTP/2 streams one client (an IPv4 address, an IPv6 /64) holds open at once across its connections; more are refused."
        }
    }

    /// Read from the configuration's own defaults (each layer writes its own), never restated here.
    var defaultValue: SettingDefault {
        let c = ServeDefaults.configuration, p = c.pipeline, limits = p.transferLimits
        switch self {
        case .port: return .number(Int(c.web.port))
        case .prefetch: return .number(Defaults.prefetchMargin)
        case .downloads: return .number(p.maxConcurrentDownloads)
        case .maxTransfers: return .number(p.maxConcurrentTransfers)
        case .filters: return .words("the number of cores")
        case .memoryBudgetMb: return .number(p.memoryBudgetBytes / 1_048_576)
        case .memoryLimitMb: return .words("the memory budget + 512 MiB")
        case .thumbnailHeight: return .number(p.thumbnailHeight)
        case .photoCount: return .number(c.sample.photoCount)
        case .sampleLatencyMs: return .number(ServeDefaults.milliseconds(c.sample.latency))
        case .sampleBandwidth: return .number(c.sample.bandwidth)
        case .connectTimeout: return .number(ServeDefaults.seconds(limits.connectTimeout))
        case .stallTimeout: return .number(ServeDefaults.seconds(limits.lowSpeedTime))
        case .minDownloadSpeed: return .number(limits.minimumAverageSpeed)
        case .downloadTimeout: return limits.totalTimeout.map { .number(ServeDefaults.seconds($0)) } ?? .words("none")
        case .maxMegapixels: return .number(p.decodeLimits.maxPixels / 1_000_000)
        case .maxDownloadMb: return .number(limits.maxBodyBytes / 1_048_576)
        case .maxViewers: return .number(c.web.maxViewers)
        case .diskBudgetMb: return .number(p.diskBudgetBytes / 1_048_576)
        case .maxHeaderBytes: return .number(c.web.maxHeaderBytes)
        case .maxUrlLength: return .number(c.web.maxURLLength)
        case .maxBodyBytes: return .number(c.web.maxRequestBodyBytes)
        case .idleTimeout: return .number(ServeDefaults.seconds(c.web.idleTimeout))
        case .sendTimeout: return .number(ServeDefaults.seconds(c.web.sendTimeout))
        case .maxConnections: return .words("the open-files limit - 256")
        case .connectionsPerClient: return .number(c.web.connectionsPerClient)
        case .viewersPerMinute: return .number(c.web.viewersPerMinute)
        case .retriesPerMinute: return .number(c.web.retriesPerMinute)
        case .viewerConnectTimeout: return .number(ServeDefaults.seconds(c.web.viewerConnectTimeout))
        case .maxLabs: return .number(c.web.maxLabs)
        case .viewersPerClient: return .words("a quarter of --max-viewers, at least 1")
        case .followersPerPresentation: return .number(c.web.followersPerPresentation)
        case .roomSize: return .number(c.web.roomSize)
        case .presentationsPerClient: return .number(c.web.presentationsPerClient)
        case .labsPerClient: return .words("a quarter of --max-labs, at least 1")
        case .sharedStreamsPerClient: return .number(c.web.sharedStreamsPerClient)
        case .maxLabImageTransfers: return .number(c.web.maxLabImageTransfers)
        case .unsentEventsBudgetMb: return .number(c.web.unsentEventsBudgetBytes / 1_048_576)
        case .httpRedirectPort: return .words("none")
        case .hstsMaxAge: return .number(c.web.hstsMaxAge)
        case .maxStreams: return .number(c.web.maxStreams)
        case .streamsPerClient: return .words("twice --max-streams")
        }
    }
}
