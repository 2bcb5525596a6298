import ArgumentParser

/// `classic-photos`: the ClassicPhotos Live command line.
@main
struct ClassicPhotosCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classic-photos",
        abstract: "ClassicPhotos Live: a long list of photos, downloaded and sepia-toned as you scroll.",
        subcommands: [ServeCommand.self, SepiaCommand.self, SamplesCommand.self, SettingsCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
