import ArgumentParser
import Foundation
import Logging
import PhotoServer

/// `classic-photos serve`: parses the settings and hands the configuration to PhotoServer.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the live photo list (built-in sample photos unless --source or --photos-dir is given).",
        discussion: ServerConfiguration.settingsHelp)

    @OptionGroup var settings: ServeSettings

    /// The configuration these arguments and `environment` make.
    func makeConfiguration(environment: [String: String]) throws(SettingError) -> ServerConfiguration {
        try settings.configuration(environment: environment)
    }

    func run() async throws {
        let configuration: ServerConfiguration
        do {
            configuration = try makeConfiguration(environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.description)
        }
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let server: PhotoServer
        do {
            // SIGTERM and SIGINT stop it gracefully, SIGHUP reads the TLS files again.
            server = try await PhotoServer.start(configuration, handlingSignals: true)
        } catch {
            throw CommandFailure("\(error)")
        }
        // Written unbuffered: a supervisor or script reading a pipe sees the address at once.
        FileHandle.standardOutput.write(Data((configuration.listeningLine(port: server.port) + "\n").utf8))
        try await server.run()
    }
}
