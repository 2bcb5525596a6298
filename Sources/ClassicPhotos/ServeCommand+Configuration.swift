import Foundation
import HTTPTransfer
import Logging
import PhotoPipeline
import PhotoWeb
import PhotoCodecs
import SampleOrigin

/// A setting given a value it cannot take; the message names the flag and the value.
struct SettingError: Error, CustomStringConvertible {
    let description: String
}

extension ServeCommand {
    /// Flags, then environment variables, then defaults, checked: the one configuration of the run.
    func makeConfiguration(environment: [String: String]) throws -> ServerConfiguration {
        let settings = Settings(environment: environment)
        var configuration = ServerConfiguration()
        configuration.host = try settings.string("host", host) ?? configuration.host
        configuration.port = UInt16(try settings.int("port", port, in: 0...65_535) ?? Int(configuration.port))
        if let basePath = try settings.string("base-path", basePath) {
            guard basePath.isEmpty || (basePath.hasPrefix("/") && !basePath.hasSuffix("/")) else {
                throw SettingError(description: "--base-path must start with / and not end with one, got \(basePath)")
            }
            configuration.basePath = basePath
        }
        configuration.source = try settings.string("source", source)
        configuration.photosDirectory = try settings.string("photos-dir", photosDir)
        if configuration.source != nil, configuration.photosDirectory != nil {
            throw SettingError(description: "--source and --photos-dir cannot be used together")
        }
        let margin = try settings.int("prefetch", prefetch, in: Defaults.prefetchMargins) ?? Defaults.prefetchMargin
        let name = try settings.string("strategy", strategy) ?? Defaults.strategy.name
        guard let chosen = SchedulingStrategy(name: name, margin: margin) else {
            throw SettingError(description: "--strategy must be \(SchedulingStrategy.namesInWords), got \(name)")
        }
        configuration.strategy = chosen
        var pipeline = configuration.pipeline
        pipeline.maxConcurrentDownloads = try settings.int("downloads", downloads, in: 1...256) ?? pipeline.maxConcurrentDownloads
        if let transfers = try settings.int("max-transfers", maxTransfers, in: 1...4_096) {
            guard transfers >= pipeline.maxConcurrentDownloads else {
                throw SettingError(description: "--max-transfers (\(transfers)) must be at least --downloads (\(pipeline.maxConcurrentDownloads))")
            }
            pipeline.maxConcurrentTransfers = transfers
        }
        // Never fewer transfers than prefetch downloads.
        pipeline.maxConcurrentTransfers = max(pipeline.maxConcurrentTransfers, pipeline.maxConcurrentDownloads)
        pipeline.maxConcurrentFiltrations = try settings.int("filters", filters, in: 1...256) ?? pipeline.maxConcurrentFiltrations
        pipeline.memoryBudgetBytes = (try settings.int("memory-budget-mb", memoryBudgetMb, in: 1...1_048_576)).map { $0 * 1_048_576 } ?? pipeline.memoryBudgetBytes
        configuration.memoryLimitBytes = (try settings.int("memory-limit-mb", memoryLimitMb, in: 16...1_048_576)).map { $0 * 1_048_576 }
        pipeline.thumbnailHeight = try settings.int("thumbnail-height", thumbnailHeight, in: 16...2_000) ?? pipeline.thumbnailHeight
        if let seconds = try settings.int("connect-timeout", connectTimeout, in: 1...600) { pipeline.transferLimits.connectTimeout = .seconds(seconds) }
        if let seconds = try settings.int("stall-timeout", stallTimeout, in: 1...3_600) { pipeline.transferLimits.lowSpeedTime = .seconds(seconds) }
        if let megabytes = try settings.int("max-download-mb", maxDownloadMb, in: 1...10_000) { pipeline.transferLimits.maxBodyBytes = megabytes * 1_048_576 }
        if let speed = try settings.int("min-download-speed", minDownloadSpeed, in: 0...1_000_000_000) { pipeline.transferLimits.minimumAverageSpeed = speed }
        if let seconds = try settings.int("download-timeout", downloadTimeout, in: 1...86_400) { pipeline.transferLimits.totalTimeout = .seconds(seconds) }
        if let hosts = try settings.string("allow-source-host", allowSourceHost) {
            do {
                pipeline.transferLimits.allowedSources = try AllowedSources(
                    parsing: hosts.split(separator: ",").map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty })
            } catch {
                throw SettingError(description: "--allow-source-host: \(error)")
            }
        }
        if let megapixels = try settings.int("max-megapixels", maxMegapixels, in: 1...1_000) { pipeline.decodeLimits.maxPixels = megapixels * 1_000_000 }
        configuration.pipeline = pipeline

        if let directory = try settings.string("cache-dir", cacheDir) {
            configuration.cacheDirectory = directory
            configuration.sample.directory = directory
        }
        configuration.sample.photoCount = try settings.int("photo-count", photoCount, in: 1...100_000) ?? configuration.sample.photoCount
        if let milliseconds = try settings.int("sample-latency-ms", sampleLatencyMs, in: 0...60_000) { configuration.sample.latency = .milliseconds(milliseconds) }
        configuration.sample.bandwidth = try settings.int("sample-bandwidth", sampleBandwidth, in: 1_000...10_000_000_000) ?? configuration.sample.bandwidth
        configuration.publicDirectory = try settings.string("public-dir", publicDir) ?? configuration.publicDirectory
        configuration.templatesDirectory = try settings.string("templates-dir", templatesDir) ?? configuration.templatesDirectory
        configuration.maxViewers = try settings.int("max-viewers", maxViewers, in: 1...1_000_000) ?? configuration.maxViewers
        configuration.pipeline.diskBudgetBytes = (try settings.int("disk-budget-mb", diskBudgetMb, in: 1...10_485_760)).map { $0 * 1_048_576 }
            ?? configuration.pipeline.diskBudgetBytes
        // Limits a public demo URL needs against hostile clients.
        configuration.maxHeaderBytes = try settings.int("max-header-bytes", maxHeaderBytes, in: 1_024...1_048_576) ?? configuration.maxHeaderBytes
        configuration.maxURLLength = try settings.int("max-url-length", maxUrlLength, in: 256...1_048_576) ?? configuration.maxURLLength
        configuration.maxRequestBodyBytes = try settings.int("max-body-bytes", maxBodyBytes, in: 1_024...104_857_600) ?? configuration.maxRequestBodyBytes
        if let seconds = try settings.int("idle-timeout", idleTimeout, in: 1...3_600) { configuration.idleTimeout = .seconds(seconds) }
        if let seconds = try settings.int("send-timeout", sendTimeout, in: 1...3_600) { configuration.sendTimeout = .seconds(seconds) }
        configuration.maxConnections = try settings.int("max-connections", maxConnections, in: 1...10_000_000)
        configuration.connectionsPerClient = try settings.int("connections-per-client", connectionsPerClient, in: 1...10_000_000)
            ?? configuration.connectionsPerClient
        configuration.viewersPerMinute = try settings.int("viewers-per-minute", viewersPerMinute, in: 1...1_000_000) ?? configuration.viewersPerMinute
        configuration.retriesPerMinute = try settings.int("retries-per-minute", retriesPerMinute, in: 1...1_000_000) ?? configuration.retriesPerMinute
        configuration.followersPerPresentation = try settings.int("followers-per-presentation", followersPerPresentation, in: 1...1_000_000)
            ?? configuration.followersPerPresentation
        configuration.presentationsPerClient = try settings.int("presentations-per-client", presentationsPerClient, in: 1...1_000)
            ?? configuration.presentationsPerClient
        if let seconds = try settings.int("viewer-connect-timeout", viewerConnectTimeout, in: 1...3_600) {
            configuration.viewerConnectTimeout = .seconds(seconds)
        }
        configuration.maxLabs = try settings.int("max-labs", maxLabs, in: 0...64) ?? configuration.maxLabs
        configuration.viewersPerClient = try settings.int("viewers-per-client", viewersPerClient, in: 1...1_000_000)
        configuration.labsPerClient = try settings.int("labs-per-client", labsPerClient, in: 1...64)
        configuration.sharedStreamsPerClient = try settings.int("shared-streams-per-client", sharedStreamsPerClient, in: 1...1_000_000)
            ?? configuration.sharedStreamsPerClient
        configuration.maxLabImageTransfers = try settings.int("max-lab-image-transfers", maxLabImageTransfers, in: 1...100_000)
            ?? configuration.maxLabImageTransfers
        if let megabytes = try settings.int("unsent-events-budget-mb", unsentEventsBudgetMb, in: 1...65_536) {
            configuration.unsentEventsBudgetBytes = megabytes * 1_048_576
        }
        if let proxies = try settings.string("trusted-proxy", trustedProxy) {
            configuration.trustedProxies = proxies.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        if let level = try settings.string("log-level", logLevel) {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw SettingError(description: "--log-level must be trace, debug, info, notice, warning, error or critical, got \(level)")
            }
            configuration.logLevel = parsed
        }
        configuration.databaseURL = try settings.string("database-url", databaseUrl)
        if let name = try settings.string("instance-name", instanceName) {
            guard name.count <= 64, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw SettingError(description: "--instance-name must be up to 64 letters, digits, - or _, got \(name)")
            }
            configuration.instanceName = name
        }
        try tlsOptions.apply(settings, to: &configuration)
        return configuration
    }
}

/// Reads one setting from its flag or, failing that, its environment variable
/// (`--photo-count` -> `CLASSIC_PHOTOS_PHOTO_COUNT`).
struct Settings {
    let environment: [String: String]

    static func variable(for flag: String) -> String {
        "CLASSIC_PHOTOS_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    func string(_ flag: String, _ value: String?) throws -> String? {
        if let value { return value }
        guard let text = environment[Self.variable(for: flag)], !text.isEmpty else { return nil }
        return text
    }

    func int(_ flag: String, _ value: Int?, in range: ClosedRange<Int>) throws -> Int? {
        let number: Int
        if let value {
            number = value
        } else if let text = environment[Self.variable(for: flag)], !text.isEmpty {
            guard let parsed = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw SettingError(description: "\(Self.variable(for: flag)) must be a whole number, got \(text)")
            }
            number = parsed
        } else {
            return nil
        }
        guard range.contains(number) else {
            throw SettingError(description: "--\(flag) must be between \(range.lowerBound) and \(range.upperBound), got \(number)")
        }
        return number
    }
}
