import FlyingFox
import FlyingSocks
import Foundation

/// The built-in sample origin: a real HTTP server on loopback serving generated photos and a data
/// source listing them, with latency and bandwidth per transfer so that scrolling visibly matters.
public final class SampleOrigin: Sendable {
    /// The settings it was started with.
    public let configuration: SampleOriginConfiguration
    /// The data source URL (`http://127.0.0.1:PORT/photos.plist`).
    public let dataSourceURL: String
    /// The port it listens on.
    public let port: UInt16
    /// The folder the photos are served from.
    public let folder: String
    /// Files of a user's folder that are not listed, with why.
    public let skipped: [SkippedFile]

    private let server: HTTPServer
    private let task: Task<Void, any Error>

    private init(
        configuration: SampleOriginConfiguration, folder: String, skipped: [SkippedFile], server: HTTPServer,
        task: Task<Void, any Error>, port: UInt16
    ) {
        self.configuration = configuration
        self.folder = folder
        self.skipped = skipped
        self.server = server
        self.task = task
        self.port = port
        self.dataSourceURL = "http://127.0.0.1:\(port)/photos.plist"
    }

    /// Generates the sample photos missing on disk (or lists `folder`, a folder of the user's own
    /// photos), then starts serving on 127.0.0.1.
    public static func start(_ configuration: SampleOriginConfiguration, folder: String? = nil) async throws -> SampleOrigin {
        let library = try folder.map { try SampleLibrary(folder: $0) } ?? SampleLibrary(configuration: configuration)
        // Generating is seconds of CPU on every core: it runs on Dispatch's threads, never on the
        // cooperative pool the HTTP servers share.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { _ = try library.generateMissing() })
            }
        }

        let address: sockaddr_in
        do {
            address = try .inet(ip4: "127.0.0.1", port: configuration.port)
        } catch {
            throw SampleOriginError.cannotListen("\(error)")
        }
        let server = HTTPServer(address: address, logger: .disabled)
        let task = Task { try await server.run() }
        do {
            try await server.waitUntilListening(timeout: 10)
        } catch {
            task.cancel()
            throw SampleOriginError.cannotListen("\(error)")
        }
        guard case .ip4(_, let port) = await server.listeningAddress else {
            task.cancel()
            throw SampleOriginError.cannotListen("no IPv4 address")
        }
        let baseURL = "http://127.0.0.1:\(port)"
        let plist = try library.propertyList(baseURL: baseURL)
        let latency = configuration.latency
        let bandwidth = configuration.bandwidth

        await server.appendRoute("GET /photos.plist") { _ in
            HTTPResponse(statusCode: .ok, headers: [.contentType: "application/x-plist"], body: plist)
        }
        await server.appendRoute("GET /images/:file") { request in
            try await Task.sleep(for: latency)
            guard let file = request.routeParameters["file"], let data = library.bytes(of: file) else {
                return HTTPResponse(statusCode: .notFound, headers: [.contentType: "text/plain"], body: Data("no such photo\n".utf8))
            }
            let type = file.hasSuffix(".png") ? "image/png" : "image/jpeg"
            return HTTPResponse(
                statusCode: .ok, headers: [.contentType: type],
                body: HTTPBodySequence(
                    from: ThrottledBody(data: data, bytesPerSecond: bandwidth), count: data.count,
                    suggestedBufferSize: ThrottledBody.sliceSize(bytesPerSecond: bandwidth)))
        }
        return SampleOrigin(
            configuration: configuration, folder: library.directory.path, skipped: library.skipped, server: server, task: task,
            port: port)
    }

    /// A name for the photo at `url` that stays the same across runs (the port does not):
    /// the folder it is served from and its path.
    public func stableKey(for url: String) -> String {
        url.replacingOccurrences(of: "http://127.0.0.1:\(port)", with: "sample-origin:\(folder)")
    }

    /// Stops serving.
    public func stop() async {
        await server.stop(timeout: 1)
        task.cancel()
    }
}
