import ArgumentParser
import Foundation
import PhotoServer

/// `classic-photos samples`: makes the built-in sample photos on disk now. `serve` makes each one
/// when a row first asks for it (and the rest in the background), so this is only for a machine
/// that should start a demo with every photo ready, and for tests that read the files.
struct SamplesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "samples",
        abstract: "Make the built-in sample photos on disk now (serve makes them as rows ask for them).",
        discussion: "Takes serve's settings (--photo-count and --cache-dir are the ones it reads); see `serve --help`.")

    @OptionGroup var settings: ServeSettings

    func run() async throws {
        let configuration: ServerConfiguration
        do {
            configuration = try settings.configuration(environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.description)
        }
        do {
            print(try await configuration.makeSamples())
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
