import ArgumentParser
import Foundation
import PhotoWeb
import SampleOrigin

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
        let directory = settings.string(.cacheDir, cacheDir) ?? defaults.cacheDirectory
        let count = try settings.int(.photoCount, photoCount) ?? defaults.sample.photoCount
        let sample = SampleOriginConfiguration(
            photoCount: count, latency: defaults.sample.latency, bandwidth: defaults.sample.bandwidth, directory: directory)
        do {
            let made = try await SampleOrigin.makeAll(sample)
            print("made \(made) sample photos in \(directory) (\(count) listed)")
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
