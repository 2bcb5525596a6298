import Logging
import SampleOrigin

/// The sample origin listening on loopback: its server in a service group of its own (it starts
/// while the list loads, after the server's group), its port and its data source's address.
struct RunningOrigin: Sendable {
    let origin: SampleOrigin
    let server: RunningServer
    /// The data source URL (`http://127.0.0.1:PORT/photos.plist`).
    let dataSourceURL: String

    /// Lists the sample photos (or `folder`) and serves them at once, making those missing on disk
    /// as they are asked for and in the background. `progress(made, total)` follows the background
    /// (from a Dispatch thread).
    static func start(
        _ configuration: SampleOriginConfiguration, folder: String? = nil, makeInBackground: Bool = true,
        progress: (@Sendable (_ made: Int, _ total: Int) -> Void)? = nil
    ) async throws -> RunningOrigin {
        let origin = try await SampleOrigin.prepare(configuration, folder: folder, makeInBackground: makeInBackground, progress: progress)
        var logger = Logger(label: "sample-origin")
        logger.logLevel = .warning
        let server: RunningServer
        do {
            server = try await RunningServer.start(logger: logger) { origin.server(onServerRunning: $0) }
        } catch {
            throw SampleOriginError.cannotListen(error.reason)
        }
        return RunningOrigin(origin: origin, server: server, dataSourceURL: origin.listening(on: server.port))
    }

    /// The port it listens on.
    var port: UInt16 { UInt16(server.port) }

    /// A name for the photo at `url` that stays the same across runs (the port does not).
    func stableKey(for url: String) -> String {
        origin.stableKey(for: url, port: server.port)
    }

    /// Stops serving.
    func stop() async {
        origin.stopMaking()
        await server.stop(cutOff: .seconds(1))
    }
}
