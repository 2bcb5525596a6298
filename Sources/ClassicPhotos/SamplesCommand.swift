import ArgumentParser
import Foundation
import SampleOrigin
import PhotoServer

/// `classic-photos samples`: makes the built-in sample photos on disk now. `serve` makes each one
/// when a row first asks for it (and the rest in the background), so this is only for a machine
/// that should start a demo with every photo ready, and for tests that read the files.
struct SamplesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "samples",
        abstract: "Make the built-in sample photos on disk now (serve makes them as rows ask for them).")

    @Option(NumberSetting.photoCount)
    var photoCount: Int?

    @Option(TextSetting.cacheDir)
    var cacheDir: String?

    func run() async throws {
        let settings = SettingValues(environment: ProcessInfo.processInfo.environment)
        let defaults = ServerConfiguration()
        var sample = defaults.sample
        sample.directory = settings.string(.cacheDir, cacheDir) ?? defaults.cacheDirectory
        sample.photoCount = try settings.int(.photoCount, photoCount) ?? sample.photoCount
        do {
            let made = try await SampleOrigin.makeAll(sample)
            print("made \(made) sample photos in \(sample.directory) (\(sample.photoCount) listed)")
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
