@testable import ClassicPhotos
import HTTPTransfer
import PhotoPipeline
@testable import PhotoWeb
import Testing
import ArgumentParser
import SampleOrigin
import PhotoServer

@Suite("serve: what downloads may reach, and how slowly")
struct OutboundSettingsTests {
    func configuration(_ arguments: [String], environment: [String: String] = [:]) throws -> ServerConfiguration {
        try ServeCommand.parse(arguments).makeConfiguration(environment: environment)
    }

    @Test func defaultsArePublicAddressesOnlyAndBoundedDownloads() throws {
        let limits = try configuration([]).pipeline.transferLimits
        #expect(limits.allowedSources == .publicOnly)
        #expect(limits.minimumAverageSpeed == 500)
        #expect(limits.totalTimeout == .seconds(600))
    }

    @Test func allowedSourcesComeFromTheFlagOrTheVariable() throws {
        let fromFlag = try configuration(["--allow-source-host", "10.0.0.0/8, photos.internal:8080,[::1]:81"])
        #expect(fromFlag.pipeline.transferLimits.allowedSources.entries.map(\.description) == ["10.0.0.0/8", "photos.internal:8080", "[::1]:81"])
        let fromVariable = try configuration([], environment: ["CLASSIC_PHOTOS_ALLOW_SOURCE_HOST": "127.0.0.1:9000"])
        #expect(fromVariable.pipeline.transferLimits.allowedSources.entries.map(\.description) == ["127.0.0.1:9000"])
        #expect(throws: SettingError.self) { try configuration(["--allow-source-host", "http://x"]) }
    }

    @Test func speedAndTimeBoundsComeFromTheirFlagsOrVariables() throws {
        let limits = try configuration(["--min-download-speed", "0"], environment: ["CLASSIC_PHOTOS_DOWNLOAD_TIMEOUT": "30"]).pipeline.transferLimits
        #expect(limits.minimumAverageSpeed == 0)
        #expect(limits.totalTimeout == .seconds(30))
        #expect(throws: SettingError.self) { try configuration(["--download-timeout", "0"]) }
    }

    @Test func theOriginsTheOperatorStartedOrNamedAreAllowedAndNothingElse() throws {
        var configuration = try configuration(["--source", "http://photos.example:8081/list.json", "--allow-source-host", "10.1.2.3"])
        let sources = configuration.transferLimits(namedOrigin: "http://127.0.0.1:4321/photos.plist").allowedSources
        #expect(sources.entries.map(\.description) == ["10.1.2.3", "127.0.0.1:4321", "photos.example:8081"])
        let loopback = try #require(IPAddress("127.0.0.1"))
        #expect(sources.refusal(host: "127.0.0.1", address: loopback, port: 4321) == nil)
        #expect(sources.refusal(host: "127.0.0.1", address: loopback, port: 4322) != nil)
        configuration.source = "list.json"
        #expect(configuration.transferLimits(namedOrigin: nil).allowedSources.entries.map(\.description) == ["10.1.2.3"])
    }
}
