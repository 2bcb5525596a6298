import Foundation
import HTTPTransfer
import Logging
import PhotoPipeline
import PhotoWeb
import PhotoCodecs
import SampleOrigin
import PhotoCluster
import PhotoServer

extension ServeCommand {
    /// Flags, then environment variables, then defaults, checked: the one configuration of the run.
    func makeConfiguration(environment: [String: String]) throws -> ServerConfiguration {
        let settings = SettingValues(environment: environment)
        var configuration = ServerConfiguration()
        configuration.web.host = settings.string(.host, host) ?? configuration.web.host
        configuration.web.port = UInt16(try settings.int(.port, port) ?? Int(configuration.web.port))
        if let basePath = settings.string(.basePath, basePath) {
            guard basePath.isEmpty || (basePath.hasPrefix("/") && !basePath.hasSuffix("/")) else {
                throw SettingError(TextSetting.basePath, must: "start with / and not end with one", got: basePath)
            }
            configuration.web.basePath = basePath
        }
        configuration.source = settings.string(.source, source)
        configuration.photosDirectory = settings.string(.photosDir, photosDir)
        if configuration.source != nil, configuration.photosDirectory != nil {
            throw SettingError(description: "--source and --photos-dir cannot be used together")
        }
        let margin = try settings.int(.prefetch, prefetch) ?? Defaults.prefetchMargin
        let name = settings.string(.strategy, strategy) ?? Defaults.strategy.name
        guard let chosen = SchedulingStrategy(name: name, margin: margin) else {
            throw SettingError(TextSetting.strategy, must: "be " + TextSetting.strategy.rangeText, got: name)
        }
        configuration.web.strategy = chosen
        var pipeline = configuration.pipeline
        pipeline.maxConcurrentDownloads = try settings.int(.downloads, downloads) ?? pipeline.maxConcurrentDownloads
        if let transfers = try settings.int(.maxTransfers, maxTransfers) {
            guard transfers >= pipeline.maxConcurrentDownloads else {
                throw SettingError(description: "--max-transfers (\(transfers)) must be at least --downloads (\(pipeline.maxConcurrentDownloads))")
            }
            pipeline.maxConcurrentTransfers = transfers
        }
        // Never fewer transfers than prefetch downloads.
        pipeline.maxConcurrentTransfers = max(pipeline.maxConcurrentTransfers, pipeline.maxConcurrentDownloads)
        pipeline.maxConcurrentFiltrations = try settings.int(.filters, filters) ?? pipeline.maxConcurrentFiltrations
        pipeline.memoryBudgetBytes = (try settings.int(.memoryBudgetMb, memoryBudgetMb)).map { $0 * 1_048_576 } ?? pipeline.memoryBudgetBytes
        configuration.memoryLimitBytes = (try settings.int(.memoryLimitMb, memoryLimitMb)).map { $0 * 1_048_576 }
        pipeline.thumbnailHeight = try settings.int(.thumbnailHeight, thumbnailHeight) ?? pipeline.thumbnailHeight
        if let seconds = try settings.int(.connectTimeout, connectTimeout) { pipeline.transferLimits.connectTimeout = .seconds(seconds) }
        if let seconds = try settings.int(.stallTimeout, stallTimeout) { pipeline.transferLimits.lowSpeedTime = .seconds(seconds) }
        if let megabytes = try settings.int(.maxDownloadMb, maxDownloadMb) { pipeline.transferLimits.maxBodyBytes = megabytes * 1_048_576 }
        if let speed = try settings.int(.minDownloadSpeed, minDownloadSpeed) { pipeline.transferLimits.minimumAverageSpeed = speed }
        if let seconds = try settings.int(.downloadTimeout, downloadTimeout) { pipeline.transferLimits.totalTimeout = .seconds(seconds) }
        if let hosts = settings.string(.allowSourceHost, allowSourceHost) {
            do {
                pipeline.transferLimits.allowedSources = try AllowedSources(
                    parsing: hosts.split(separator: ",").map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty })
            } catch {
                throw SettingError(description: "--allow-source-host: \(error)")
            }
        }
        if let megapixels = try settings.int(.maxMegapixels, maxMegapixels) { pipeline.decodeLimits.maxPixels = megapixels * 1_000_000 }
        configuration.pipeline = pipeline

        if let directory = settings.string(.cacheDir, cacheDir) {
            configuration.cacheDirectory = directory
            configuration.sample.directory = directory
        }
        configuration.sample.photoCount = try settings.int(.photoCount, photoCount) ?? configuration.sample.photoCount
        if let milliseconds = try settings.int(.sampleLatencyMs, sampleLatencyMs) { configuration.sample.latency = .milliseconds(milliseconds) }
        configuration.sample.bandwidth = try settings.int(.sampleBandwidth, sampleBandwidth) ?? configuration.sample.bandwidth
        configuration.web.publicDirectory = settings.string(.publicDir, publicDir) ?? configuration.web.publicDirectory
        configuration.web.templatesDirectory = settings.string(.templatesDir, templatesDir) ?? configuration.web.templatesDirectory
        configuration.web.maxViewers = try settings.int(.maxViewers, maxViewers) ?? configuration.web.maxViewers
        configuration.pipeline.diskBudgetBytes = (try settings.int(.diskBudgetMb, diskBudgetMb)).map { $0 * 1_048_576 }
            ?? configuration.pipeline.diskBudgetBytes
        // Limits a public demo URL needs against hostile clients.
        configuration.web.maxHeaderBytes = try settings.int(.maxHeaderBytes, maxHeaderBytes) ?? configuration.web.maxHeaderBytes
        configuration.web.maxURLLength = try settings.int(.maxUrlLength, maxUrlLength) ?? configuration.web.maxURLLength
        configuration.web.maxRequestBodyBytes = try settings.int(.maxBodyBytes, maxBodyBytes) ?? configuration.web.maxRequestBodyBytes
        if let seconds = try settings.int(.idleTimeout, idleTimeout) { configuration.web.idleTimeout = .seconds(seconds) }
        if let seconds = try settings.int(.sendTimeout, sendTimeout) { configuration.web.sendTimeout = .seconds(seconds) }
        configuration.web.maxConnections = try settings.int(.maxConnections, maxConnections)
        configuration.web.connectionsPerClient = try settings.int(.connectionsPerClient, connectionsPerClient)
            ?? configuration.web.connectionsPerClient
        configuration.web.viewersPerMinute = try settings.int(.viewersPerMinute, viewersPerMinute) ?? configuration.web.viewersPerMinute
        configuration.web.retriesPerMinute = try settings.int(.retriesPerMinute, retriesPerMinute) ?? configuration.web.retriesPerMinute
        configuration.web.followersPerPresentation = try settings.int(.followersPerPresentation, followersPerPresentation)
            ?? configuration.web.followersPerPresentation
        configuration.web.roomSize = try settings.int(.roomSize, roomSize) ?? configuration.web.roomSize
        configuration.web.presentationsPerClient = try settings.int(.presentationsPerClient, presentationsPerClient)
            ?? configuration.web.presentationsPerClient
        if let seconds = try settings.int(.viewerConnectTimeout, viewerConnectTimeout) {
            configuration.web.viewerConnectTimeout = .seconds(seconds)
        }
        configuration.web.maxLabs = try settings.int(.maxLabs, maxLabs) ?? configuration.web.maxLabs
        configuration.web.viewersPerClient = try settings.int(.viewersPerClient, viewersPerClient)
        configuration.web.labsPerClient = try settings.int(.labsPerClient, labsPerClient)
        configuration.web.sharedStreamsPerClient = try settings.int(.sharedStreamsPerClient, sharedStreamsPerClient)
            ?? configuration.web.sharedStreamsPerClient
        configuration.web.maxLabImageTransfers = try settings.int(.maxLabImageTransfers, maxLabImageTransfers)
            ?? configuration.web.maxLabImageTransfers
        if let megabytes = try settings.int(.unsentEventsBudgetMb, unsentEventsBudgetMb) {
            configuration.web.unsentEventsBudgetBytes = megabytes * 1_048_576
        }
        if let proxies = settings.string(.trustedProxy, trustedProxy) {
            configuration.web.trustedProxies = proxies.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        if let level = settings.string(.logLevel, logLevel) {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw SettingError(TextSetting.logLevel, must: "be " + TextSetting.logLevel.rangeText, got: level)
            }
            configuration.web.logLevel = parsed
        }
        configuration.cluster.databaseURL = settings.string(.databaseUrl, databaseUrl)
        if let name = settings.string(.instanceName, instanceName) {
            guard name.count <= 64, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw SettingError(TextSetting.instanceName, must: "be up to 64 letters, digits, - or _", got: name)
            }
            configuration.cluster.instanceName = name
        }
        try tlsOptions.apply(settings, to: &configuration)
        return configuration
    }
}
