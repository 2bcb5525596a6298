import ArgumentParser
import PhotoServer

/// `classic-photos settings`: the settings table of docs/settings.md, generated from the settings'
/// declarations (`SettingsTableTests` fails when the page differs).
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Print every serve setting as a Markdown table: flag, environment variable, default, range, what it does.")

    func run() {
        print(ServerConfiguration.settingsTable)
    }
}
