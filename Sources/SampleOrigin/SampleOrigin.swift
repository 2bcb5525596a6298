import Foundation
import Locking
public import Hummingbird
import Logging
public import NIOCore
public import ServiceLifecycle
import NIOFoundationEssentialsCompat

/// The built-in sample origin: a real HTTP server on loopback serving generated photos and a data
/// source listing them, with latency and bandwidth per transfer so that scrolling visibly matters.
/// Photos carry `ETag` and `Last-Modified` and answer `Range` requests (with `If-Range`) as nginx
/// does, so a cancelled download can be resumed.
public final class SampleOrigin: Sendable {
    /// The settings it was started with.
    public let configuration: SampleOriginConfiguration
    /// The folder the photos are served from.
    public let folder: String
    /// Files of a user's folder that are not listed, with why.
    public let skipped: [SkippedFile]

    private let library: SampleLibrary
    /// Makes the generated photos not on disk yet (nil for a folder of the user's own photos).
    private let maker: SampleMaker?
    private let responder: RouterResponder<BasicRequestContext>
    /// The data source, written once the server listens (it names the photos' URLs, with the port).
    private let plist: Locked<Data?>

    private init(
        configuration: SampleOriginConfiguration, library: SampleLibrary, maker: SampleMaker?,
        responder: RouterResponder<BasicRequestContext>, plist: Locked<Data?>
    ) {
        self.configuration = configuration
        self.library = library
        self.maker = maker
        self.folder = library.directory.path
        self.skipped = library.skipped
        self.responder = responder
        self.plist = plist
    }

    /// Lists the sample photos (or `folder`, a folder of the user's own photos), ready to serve at
    /// once: a generated photo missing on disk is made when first asked for, and (unless
    /// `makeInBackground` is false) the missing ones in the background, in row order. `progress(made, total)` follows the background (called from a
    /// Dispatch thread; not at all when nothing is missing).
    public static func prepare(
        _ configuration: SampleOriginConfiguration, folder: String? = nil, makeInBackground: Bool = true,
        progress: (@Sendable (_ made: Int, _ total: Int) -> Void)? = nil
    ) async throws -> SampleOrigin {
        // Listing a folder reads files: it runs on Dispatch's threads, never on the cooperative
        // pool the HTTP servers share.
        let (library, maker) = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<(SampleLibrary, SampleMaker?), any Error>) in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result {
                    let library = try folder.map { try SampleLibrary(folder: $0) } ?? SampleLibrary(configuration: configuration)
                    return (library, try library.maker(progress: progress))
                })
            }
        }
        if makeInBackground { maker?.startBackground() }

        let router = Router(options: .autoGenerateHeadEndpoints)
        let plist = Locked<Data?>(nil)
        router.get("/photos.plist") { _, _ -> Response in
            let body = plist.withLock { $0 } ?? Data()
            return Response(status: .ok, headers: [.contentType: "application/x-plist"], body: .init(byteBuffer: ByteBuffer(data: body)))
        }
        let defaults = SimulatedNetwork(latency: configuration.latency, bandwidth: configuration.bandwidth)
        router.get("/images/:file") { request, context -> Response in
            try await Self.photo(context.parameters.get("file"), request: request, library: library, maker: maker, defaults: defaults)
        }
        return SampleOrigin(configuration: configuration, library: library, maker: maker, responder: router.buildResponder(), plist: plist)
    }

    /// Makes every generated sample photo missing on disk now (on Dispatch's threads) and returns how
    /// many it made: for a demo that should start with its photos ready, and for tests that read the files.
    public static func makeAll(_ configuration: SampleOriginConfiguration) async throws -> Int {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try SampleLibrary(configuration: configuration).maker()?.makeAll() ?? 0 })
            }
        }
    }

    /// The HTTP server on 127.0.0.1 at the configured port (0: a free one), to run in a service
    /// group; it calls `onServerRunning` once it listens, and `listening(on:)` then names its data source.
    public func server(onServerRunning: @escaping @Sendable (any Channel) async -> Void) -> some Service {
        var logger = Logger(label: "sample-origin")
        logger.logLevel = .warning
        return Application(
            responder: responder,
            configuration: .init(address: .hostname("127.0.0.1", port: Int(configuration.port)), serverName: nil),
            onServerRunning: onServerRunning,
            logger: logger)
    }

    /// The data source's URL (`http://127.0.0.1:PORT/photos.plist`) once the server listens on
    /// `port`; its photos are listed at that address from now on.
    public func listening(on port: Int) -> String {
        let baseURL = "http://127.0.0.1:\(port)"
        plist.withLock { $0 = try? library.propertyList(baseURL: baseURL) }
        return baseURL + "/photos.plist"
    }

    /// `GET /images/FILE` as this origin answers it (for another server to answer the same way):
    /// the photo after the request's simulated latency, at its bandwidth; 400 for a bad network query.
    public func photo(_ file: String?, request: Request) async throws -> Response {
        try await Self.photo(
            file, request: request, library: library, maker: maker,
            defaults: SimulatedNetwork(latency: configuration.latency, bandwidth: configuration.bandwidth))
    }

    private static func photo(
        _ file: String?, request: Request, library: SampleLibrary, maker: SampleMaker?, defaults: SimulatedNetwork
    ) async throws -> Response {
        let query = Dictionary(request.uri.queryParameters.map { (String($0.key), String($0.value)) }, uniquingKeysWith: { $1 })
        let network: SimulatedNetwork
        do {
            network = try SimulatedNetwork(query: query, defaults: defaults)
        } catch {
            return Response(status: .badRequest, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "\(error)\n")))
        }
        // A photo not made yet is made during the simulated latency, not after it.
        async let made = make(file.flatMap(library.number(of:)), with: maker)
        try await Task.sleep(for: network.latency)
        if let failure = await made {
            return Response(status: .internalServerError, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "\(failure)\n")))
        }
        guard let file, let data = library.bytes(of: file) else {
            return Response(status: .notFound, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "no such photo\n")))
        }
        return photoResponse(data, file: file, request: request, bandwidth: network.bandwidth)
    }

    /// Makes photo `number` if it is not on disk yet; why it could not be made, or nil.
    private static func make(_ number: Int?, with maker: SampleMaker?) async -> SampleOriginError? {
        guard let number, let maker else { return nil }
        do {
            try await maker.ensure(number)
            return nil
        } catch {
            return error as? SampleOriginError ?? .generationFailed("\(error)")
        }
    }

    /// A photo's bytes, whole or the range asked for, at the simulated bandwidth.
    static func photoResponse(_ data: Data, file: String, request: Request, bandwidth: Int) -> Response {
        let tag = "\"\(String(data.count, radix: 16))-\(String(fnv1a(data), radix: 16))\""
        var headers: HTTPFields = [
            .contentType: file.lowercased().hasSuffix(".png") ? "image/png" : "image/jpeg",
            .eTag: tag,
            .acceptRanges: "bytes",
        ]
        // If-Range with another validator: the client holds other bytes, so it gets the whole photo.
        let rangeApplies = request.headers[.ifRange].map { $0 == tag } ?? true
        switch rangeApplies ? ByteRange(header: request.headers[.range], length: data.count) : .whole {
        case .whole:
            return Response(status: .ok, headers: headers, body: ThrottledBody(data: data, bytesPerSecond: bandwidth).responseBody)
        case .part(let range):
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(data.count)"
            let part = data.subdata(in: (data.startIndex + range.lowerBound)..<(data.startIndex + range.upperBound + 1))
            return Response(status: .partialContent, headers: headers, body: ThrottledBody(data: part, bytesPerSecond: bandwidth).responseBody)
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(data.count)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
    }

    /// Over the raw bytes: `Data`'s own iterator, a call per byte, was a quarter of the server's CPU
    /// while it served its sample photos (perf, release build).
    private static func fnv1a(_ data: Data) -> UInt64 {
        data.withUnsafeBytes { bytes in
            bytes.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        }
    }

    /// Stops making photos in the background (a photo asked for is still made).
    public func stopMaking() {
        maker?.stop()
    }

    /// How many generated photos are not on disk yet.
    public var photosToMake: Int { maker?.missing ?? 0 }

    /// A name for the photo at `url`, served on `port`, that stays the same across runs (the port
    /// does not): the folder it is served from and its path.
    public func stableKey(for url: String, port: Int) -> String {
        url.replacingOccurrences(of: "http://127.0.0.1:\(port)", with: "sample-origin:\(folder)")
    }
}
