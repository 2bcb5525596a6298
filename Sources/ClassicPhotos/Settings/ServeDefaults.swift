import PhotoServer

/// The configuration `serve` starts from: each layer's own defaults, which the settings table
/// reads (and never restates) for `--help` and the README.
enum ServeDefaults {
    static let configuration = ServerConfiguration()

    static func seconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds)
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1_000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
