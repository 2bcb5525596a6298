import PhotoPipeline
import PhotoWeb

/// The settings that take a whole number: each one's range, unit, help and default, written once.
enum NumberSetting: String, Setting {
    case port
    case prefetch
    case downloads
    case maxTransfers = "max-transfers"
    case filters
    case memoryBudgetMb = "memory-budget-mb"
    case memoryLimitMb = "memory-limit-mb"
    case thumbnailHeight = "thumbnail-height"
    case photoCount = "photo-count"
    case sampleLatencyMs = "sample-latency-ms"
    case sampleBandwidth = "sample-bandwidth"
    case connectTimeout = "connect-timeout"
    case stallTimeout = "stall-timeout"
    case minDownloadSpeed = "min-download-speed"
    case downloadTimeout = "download-timeout"
    case maxMegapixels = "max-megapixels"
    case maxDownloadMb = "max-download-mb"
    case maxViewers = "max-viewers"
    case diskBudgetMb = "disk-budget-mb"
    case maxHeaderBytes = "max-header-bytes"
    case maxUrlLength = "max-url-length"
    case maxBodyBytes = "max-body-bytes"
    case idleTimeout = "idle-timeout"
    case sendTimeout = "send-timeout"
    case maxConnections = "max-connections"
    case connectionsPerClient = "connections-per-client"
    case viewersPerMinute = "viewers-per-minute"
    case retriesPerMinute = "retries-per-minute"
    case viewerConnectTimeout = "viewer-connect-timeout"
    case maxLabs = "max-labs"
    case viewersPerClient = "viewers-per-client"
    case followersPerPresentation = "followers-per-presentation"
    case roomSize = "room-size"
    case presentationsPerClient = "presentations-per-client"
    case labsPerClient = "labs-per-client"
    case sharedStreamsPerClient = "shared-streams-per-client"
    case maxLabImageTransfers = "max-lab-image-transfers"
    case unsentEventsBudgetMb = "unsent-events-budget-mb"
    case httpRedirectPort = "http-redirect-port"
    case hstsMaxAge = "hsts-max-age"
    case maxStreams = "max-streams"
    case streamsPerClient = "streams-per-client"

    /// The values accepted; anything else is refused at start with the flag and the value.
    var range: ClosedRange<Int> {
        switch self {
        case .port, .httpRedirectPort: 0...65_535
        case .prefetch: Defaults.prefetchMargins
        case .downloads, .filters: 1...256
        case .maxTransfers: 1...4_096
        case .memoryBudgetMb: 1...1_048_576
        case .memoryLimitMb: 16...1_048_576
        case .thumbnailHeight: 16...2_000
        case .photoCount: 1...100_000
        case .sampleLatencyMs: 0...60_000
        case .sampleBandwidth: 1_000...10_000_000_000
        case .connectTimeout: 1...600
        case .stallTimeout, .idleTimeout, .sendTimeout, .viewerConnectTimeout: 1...3_600
        case .minDownloadSpeed: 0...1_000_000_000
        case .downloadTimeout: 1...86_400
        case .maxMegapixels: 1...1_000
        case .maxDownloadMb: 1...10_000
        case .maxViewers, .viewersPerMinute, .retriesPerMinute, .followersPerPresentation, .viewersPerClient, .sharedStreamsPerClient:
            1...1_000_000
        case .diskBudgetMb: 1...10_485_760
        case .maxHeaderBytes: 1_024...1_048_576
        case .maxUrlLength: 256...1_048_576
        case .maxBodyBytes: 1_024...104_857_600
        case .maxConnections, .connectionsPerClient, .streamsPerClient: 1...10_000_000
        case .maxLabs: 0...64
        case .labsPerClient: 1...64
        case .presentationsPerClient: 1...1_000
        case .roomSize: 0...1_000_000
        case .maxLabImageTransfers: 1...100_000
        case .unsentEventsBudgetMb: 1...65_536
        case .hstsMaxAge: 0...63_072_000
        case .maxStreams: 1...10_000
        }
    }

    /// What the number counts; nil where the summary says it (viewers, labs, streams).
    var unit: NumberSettingUnit? {
        switch self {
        case .prefetch: .rows
        case .memoryBudgetMb, .memoryLimitMb, .diskBudgetMb, .maxDownloadMb, .unsentEventsBudgetMb: .mebibytes
        case .thumbnailHeight: .pixels
        case .sampleLatencyMs: .milliseconds
        case .sampleBandwidth, .minDownloadSpeed: .bytesPerSecond
        case .connectTimeout, .stallTimeout, .downloadTimeout, .idleTimeout, .sendTimeout, .viewerConnectTimeout, .hstsMaxAge: .seconds
        case .maxMegapixels: .megapixels
        case .maxHeaderBytes, .maxUrlLength, .maxBodyBytes: .bytes
        default: nil
        }
    }

    var rangeText: String {
        [String(range.lowerBound) + " to " + String(range.upperBound), unit?.rawValue ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
    }
}

/// What a number counts, as the help and the README write it after the number.
enum NumberSettingUnit: String, Sendable {
    case rows, seconds = "s", milliseconds = "ms", mebibytes = "MiB", bytes, bytesPerSecond = "bytes/s"
    case pixels = "px", megapixels
}
