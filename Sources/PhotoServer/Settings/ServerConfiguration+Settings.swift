import Foundation
import HTTPTransfer
import PhotoCodecs
import PhotoPipeline
import SampleOrigin
import PhotoTransport
import PhotoWeb

extension ServerConfiguration {
    /// Every setting, in the order `--help` and docs/settings.md list them and they are applied
    /// (`--strategy` before `--prefetch`, `--downloads` before `--max-transfers`). A new setting is
    /// one declaration here, or in `webSettings`, and the code that uses its field.
    public static let settings: [Setting] = photoSettings + webSettings

    /// Where the photos come from, how each viewer's work is driven, the caches and the downloads.
    static let photoSettings: [Setting] = [
        .text("source", "Data source: a plist or JSON file path or http(s) URL.", at: \.source, otherwise: "the built-in sample origin"),
        .text("photos-dir", "Serve this folder of JPEG/PNG photos as the origin.", at: \.photosDirectory, otherwise: "none"),
        .number("photo-count", "Photos in the built-in sample origin.", 1...100_000, at: \.sample.photoCount),
        .time("sample-latency-ms", "Sample origin latency per transfer.", 0...60_000, .milliseconds, at: \.sample.latency),
        .number("sample-bandwidth", "Sample origin bandwidth per transfer.", 1_000...10_000_000_000, .bytesPerSecond, at: \.sample.bandwidth),
        Setting("cache-dir", "Where sample photos and cached images are kept.", values: .text(choices: []) {
            ($1.cacheDirectory, $1.sample.directory) = ($0, $0)
        }) { _ in .words("~/.cache/classic-photos") },
        Setting("strategy", "How each viewer's work is driven.", page: "scroll-rules.md", values: .text(choices: SchedulingStrategy.names) {
            $1.web.strategy = SchedulingStrategy(name: $0) ?? $1.web.strategy
        }) { .words($0.web.strategy.name) },
        Setting(
            "prefetch", "The least read ahead with `--strategy prefetch` (a reader gets more); `0` reads nothing ahead.",
            page: "scroll-rules.md", values: .number(Defaults.prefetchMargins, .rows) {
                if case .prefetch = $1.web.strategy { $1.web.strategy = .prefetch(margin: $0) }
            }) { _ in .number(Defaults.prefetchMargin) },
        Setting(
            "downloads", "Prefetch and background downloads at once, across all viewers (rows on screen do not wait for these).",
            values: .number(1...256, nil) {
                $1.pipeline.maxConcurrentDownloads = $0
                // Never fewer transfers than prefetch downloads.
                $1.pipeline.maxConcurrentTransfers = max($1.pipeline.maxConcurrentTransfers, $0)
            }) { .number($0.pipeline.maxConcurrentDownloads) },
        Setting(
            "max-transfers", "Transfers at once across all viewers, rows on screen included (at least `--downloads`).",
            values: .number(1...4_096, nil) { transfers, configuration in
                let downloads = configuration.pipeline.maxConcurrentDownloads
                guard transfers >= downloads else {
                    throw SettingError("--max-transfers (\(transfers)) must be at least --downloads (\(downloads))")
                }
                configuration.pipeline.maxConcurrentTransfers = transfers
            }) { .number($0.pipeline.maxConcurrentTransfers) },
        .number("filters", "Filtrations at once, across all viewers.", 1...256, at: \.pipeline.maxConcurrentFiltrations, shown: "the number of cores"),
        .number("memory-budget-mb", "The in-memory image cache.", 1...1_048_576, .mebibytes, at: \.pipeline.memoryBudgetBytes, scale: 1_048_576),
        .number(
            "memory-limit-mb", "Past this resident size, all work is cancelled and the image cache emptied (the tutorial's memory warning).",
            16...1_048_576, .mebibytes, at: \.memoryLimitBytes, scale: 1_048_576, otherwise: "the memory budget + 512 MiB"),
        .number(
            "disk-budget-mb", "Originals and sepia results kept across restarts, in `CACHE_DIR/images`.",
            1...10_485_760, .mebibytes, at: \.pipeline.diskBudgetBytes, scale: 1_048_576),
        .number("thumbnail-height", "Thumbnail height.", 16...2_000, .pixels, at: \.pipeline.thumbnailHeight),
        .time("connect-timeout", "Time to wait for a connection to an origin.", 1...600, at: \.pipeline.transferLimits.connectTimeout),
        .time("stall-timeout", "Time a download may stall before it fails.", 1...3_600, at: \.pipeline.transferLimits.lowSpeedTime),
        .number(
            "min-download-speed",
            "Least average speed since the download began, judged once `--stall-timeout` has passed and bytes have begun to arrive: an origin that drips a few bytes a second (never \"stalled\") fails as too slow instead of holding a transfer (and its permit); `0` turns it off.",
            0...1_000_000_000, .bytesPerSecond, at: \.pipeline.transferLimits.minimumAverageSpeed),
        Setting(
            "download-timeout", "Time for a whole download, redirects included (photos and the data source alike).",
            values: .number(1...86_400, .seconds) { $1.pipeline.transferLimits.totalTimeout = .seconds($0) }
        ) { $0.pipeline.transferLimits.totalTimeout.map { .number(Int($0.components.seconds)) } ?? .words("none") },
        .number("max-download-mb", "Largest download accepted.", 1...10_000, .mebibytes, at: \.pipeline.transferLimits.maxBodyBytes, scale: 1_048_576),
        .number("max-megapixels", "Largest image accepted.", 1...1_000, .megapixels, at: \.pipeline.decodeLimits.maxPixels, scale: 1_000_000),
        Setting(
            "allow-source-host",
            "Hosts downloads may reach besides public addresses: comma-separated `HOST`, `HOST:PORT`, `ADDRESS/BITS` or `[IPV6]:PORT` (a name matches the URL's host; an address or prefix the address connected to). Loopback, private, link-local (the cloud metadata service) and other non-public ranges are refused otherwise, with the reason on the row. The built-in sample origin, `--photos-dir` and a `--source` URL's own host and port are named by starting them.",
            page: "security.md", values: .text(choices: []) {
                $1.pipeline.transferLimits.allowedSources = try AllowedSources(parsing: Self.list($0))
            }) { _ in .words("none, public addresses only") },
    ]

    /// Checks and applies the settings that only make sense together, once every setting is read
    /// (`given` by name).
    static func applyTogether(_ given: [String: String], to configuration: inout ServerConfiguration) throws(SettingError) {
        if given["source"] != nil, given["photos-dir"] != nil {
            throw SettingError("--source and --photos-dir cannot be used together")
        }
        switch (given["tls-cert"], given["tls-key"]) {
        case (let certificate?, let key?): configuration.web.tls = TLSFiles(certificate: certificate, key: key)
        case (nil, nil): configuration.web.tls = nil
        case (_?, nil): throw SettingError("--tls-cert needs --tls-key (the certificate's private key)")
        case (nil, _?): throw SettingError("--tls-key needs --tls-cert (the certificate chain)")
        }
        if given["http-redirect-port"] != nil, configuration.web.tls == nil {
            throw SettingError("--http-redirect-port redirects to HTTPS: it needs --tls-cert and --tls-key")
        }
    }

    /// The entries of a comma-separated list, blanks dropped.
    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
