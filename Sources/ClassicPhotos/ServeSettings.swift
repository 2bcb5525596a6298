import ArgumentParser
import PhotoServer

/// The settings `serve` and `samples` share: every argument is handed to PhotoServer's settings
/// (`ServerConfiguration.settings`), which name, check and document them.
struct ServeSettings: ParsableArguments {
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var arguments: [String] = []

    /// Flags, then environment variables, then defaults, checked: the one configuration of the run.
    func configuration(environment: [String: String]) throws(SettingError) -> ServerConfiguration {
        try ServerConfiguration(arguments: arguments, environment: environment)
    }
}
