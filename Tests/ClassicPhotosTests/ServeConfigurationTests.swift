@testable import ClassicPhotos
import PhotoPipeline
import PhotoWeb
import Testing
import ArgumentParser
import SampleOrigin
import PhotoCluster
import PhotoServer

@Suite("serve: configuration")
struct ServeConfigurationTests {
    func configuration(_ arguments: [String], environment: [String: String] = [:]) throws -> ServerConfiguration {
        try ServeCommand.parse(arguments).makeConfiguration(environment: environment)
    }

    @Test func defaultsAreTheDocumentedOnes() throws {
        let configuration = try configuration([])
        #expect(configuration.web.host == "127.0.0.1")
        #expect(configuration.web.port == 8080)
        #expect(configuration.web.strategy == .prefetch(margin: 3))
        #expect(configuration.source == nil)
        #expect(configuration.pipeline.maxConcurrentDownloads == 4)
        #expect(configuration.pipeline.maxConcurrentTransfers == 32)
        #expect(configuration.sample.photoCount == 300)
        #expect(configuration.web.maxLabs == 4)
    }

    @Test func maxLabsComesFromItsFlagOrItsVariable() throws {
        #expect(try configuration([], environment: ["CLASSIC_PHOTOS_MAX_LABS": "2"]).web.maxLabs == 2)
        #expect(try configuration(["--max-labs", "0"], environment: ["CLASSIC_PHOTOS_MAX_LABS": "2"]).web.maxLabs == 0)
        #expect(throws: SettingError.self) { try configuration(["--max-labs", "65"]) }
    }

    @Test func connectionsPerClientComesFromItsFlagOrItsVariable() throws {
        #expect(try configuration([]).web.connectionsPerClient == 64)
        #expect(try configuration([], environment: ["CLASSIC_PHOTOS_CONNECTIONS_PER_CLIENT": "8"]).web.connectionsPerClient == 8)
        #expect(try configuration(["--connections-per-client", "200"], environment: ["CLASSIC_PHOTOS_CONNECTIONS_PER_CLIENT": "8"])
            .web.connectionsPerClient == 200)
        #expect(throws: SettingError.self) { try configuration(["--connections-per-client", "0"]) }
    }

    @Test func sendTimeoutComesFromItsFlagOrItsVariable() throws {
        #expect(try configuration([]).web.sendTimeout == .seconds(60))
        #expect(try configuration([], environment: ["CLASSIC_PHOTOS_SEND_TIMEOUT": "5"]).web.sendTimeout == .seconds(5))
        #expect(try configuration(["--send-timeout", "9"]).web.sendTimeout == .seconds(9))
        #expect(throws: SettingError.self) { try configuration(["--send-timeout", "0"]) }
    }

    @Test func flagsWinOverTheEnvironmentWhichWinsOverDefaults() throws {
        let environment = ["CLASSIC_PHOTOS_PORT": "9000", "CLASSIC_PHOTOS_STRATEGY": "visible", "CLASSIC_PHOTOS_DOWNLOADS": "7"]
        let configuration = try configuration(["--port", "9100"], environment: environment)
        #expect(configuration.web.port == 9100)
        #expect(configuration.web.strategy == .visible)
        #expect(configuration.pipeline.maxConcurrentDownloads == 7)
    }

    @Test func serialIsAStrategyOnTheCommandLineAsInTheAPI() throws {
        #expect(try configuration(["--strategy", "serial"]).web.strategy == .serial)
        #expect(try configuration(["--prefetch", "50"]).web.strategy == .prefetch(margin: 50))
    }

    @Test(arguments: [
        (["--port", "70000"], "--port must be between 0 and 65535, got 70000"),
        (["--strategy", "lazy"], "--strategy must be eager, visible, prefetch or serial, got lazy"),
        (["--prefetch", "51"], "--prefetch must be between 0 and 50, got 51"),
        (["--downloads", "0"], "--downloads must be between 1 and 256, got 0"),
        (["--downloads", "8", "--max-transfers", "6"], "--max-transfers (6) must be at least --downloads (8)"),
        (["--base-path", "demo/"], "--base-path must start with / and not end with one, got demo/"),
        (["--source", "a.plist", "--photos-dir", "photos"], "--source and --photos-dir cannot be used together"),
        (["--instance-name", "a b"], "--instance-name must be up to 64 letters, digits, - or _, got a b"),
    ])
    func badValuesAreRejectedWithAOneLineReason(arguments: [String], reason: String) {
        #expect(throws: SettingError.self) { try configuration(arguments) }
        do {
            _ = try configuration(arguments)
        } catch {
            #expect("\(error)" == reason)
        }
    }

    @Test func theDatabaseIsNoneByDefaultAndReadFromFlagOrEnvironment() throws {
        #expect(try configuration([]).cluster.databaseURL == nil)
        let environment = ["CLASSIC_PHOTOS_DATABASE_URL": "postgres://a@127.0.0.1/x", "CLASSIC_PHOTOS_INSTANCE_NAME": "b"]
        let fromEnvironment = try configuration([], environment: environment)
        #expect(fromEnvironment.cluster.databaseURL == "postgres://a@127.0.0.1/x")
        #expect(fromEnvironment.cluster.instanceName == "b")
        let fromFlags = try configuration(["--database-url", "postgres://c@db/y", "--instance-name", "c"], environment: environment)
        #expect(fromFlags.cluster.databaseURL == "postgres://c@db/y")
        #expect(fromFlags.cluster.instanceName == "c")
    }

    @Test func aBadEnvironmentValueNamesTheVariable() {
        #expect {
            try configuration([], environment: ["CLASSIC_PHOTOS_PHOTO_COUNT": "many"])
        } throws: { error in
            "\(error)" == "CLASSIC_PHOTOS_PHOTO_COUNT must be a whole number, got many"
        }
    }
}
