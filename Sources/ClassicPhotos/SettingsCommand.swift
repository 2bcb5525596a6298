import ArgumentParser

/// `classic-photos settings`: the settings table as the README's configuration section carries it
/// (flag, environment variable, default, range, then the help's summary, which the README may say at more length),
/// one Markdown row a setting.
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Print every serve setting as a Markdown table: flag, environment variable, default, range, summary.")

    func run() {
        print(Self.markdown)
    }

    /// The table's head and one row a setting, in the README's column order.
    static var markdown: String {
        (["| flag | environment | default | range | what it does |", "|---|---|---|---|---|"]
            + AllSettings.all.map { "| " + ($0.readmeColumns + [$0.summary]).joined(separator: " | ") + " |" }).joined(separator: "\n")
    }
}
