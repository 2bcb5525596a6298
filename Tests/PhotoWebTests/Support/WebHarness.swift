import FlyingFox
import FlyingSocks
import Foundation
import PhotoPipeline
@testable import PhotoWeb

/// A real server on a loopback port of its own, on the built-in sample origin (a few small
/// photos, low latency), with a cache folder of its own. `stop()` ends all of it.
struct WebHarness {
    let application: Application
    let cacheDirectory: String

    /// The generated sample photos, shared by every harness: they are deterministic and written
    /// atomically, so they are made once (by whichever server starts first) instead of per test.
    static let sampleDirectory = NSTemporaryDirectory() + "classic-photos-test-samples"

    static func start(photoCount: Int = 12, configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> WebHarness {
        let cacheDirectory = NSTemporaryDirectory() + "classic-photos-test-" + UUID().uuidString
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.cacheDirectory = cacheDirectory
        configuration.sample.directory = sampleDirectory
        configuration.sample.photoCount = photoCount
        configuration.sample.latency = .milliseconds(5)
        configuration.sample.bandwidth = 50_000_000
        configuration.pipeline.maxConcurrentFiltrations = 2
        configuration.strategy = .visible
        configuration.tick = .milliseconds(50)
        configure(&configuration)
        let application = try await Application.start(configuration)
        await application.waitUntilLoaded()
        return WebHarness(application: application, cacheDirectory: cacheDirectory)
    }

    /// Runs `body` against a fresh server and stops the server afterwards, whatever happens.
    static func with(
        photoCount: Int = 12, configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (WebHarness) async throws -> Void
    ) async throws {
        let harness = try await start(photoCount: photoCount, configure: configure)
        do {
            try await body(harness)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    func stop() async {
        await application.stop()
        try? FileManager.default.removeItem(atPath: cacheDirectory)
    }

    var pipeline: PhotoPipeline { application.pipeline! }

    /// One request over a new connection; the whole body is read.
    func request(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:], body: Data = Data()) async throws -> TestResponse {
        var client = HTTPClient()
        let response = try await client.sendHTTPRequest(
            HTTPRequest.make(method, target, headers: headers, body: body, port: application.port),
            to: try sockaddr_in.inet(ip4: "127.0.0.1", port: application.port))
        return TestResponse(status: response.statusCode.code, headers: response.headers, body: try await response.bodyData)
    }

    /// POSTs `json` (a literal body, possibly malformed on purpose).
    func post(_ path: String, json: String) async throws -> TestResponse {
        try await request(.POST, path, headers: [.contentType: "application/json"], body: Data(json.utf8))
    }

    /// A new viewer's id, made through the API.
    func newViewer() async throws -> String {
        let response = try await request(.POST, "/api/viewers")
        return try #require(response.json["viewer"] as? String)
    }

    /// Reports a viewport and expects it accepted.
    func report(_ viewer: String, scrolling: Bool, rows: ClosedRange<Int>? = nil) async throws {
        var body = #"{"viewer": "\#(viewer)", "scrolling": \#(scrolling)"#
        if let rows { body += #", "first": \#(rows.lowerBound), "last": \#(rows.upperBound)"# }
        let response = try await post("/api/viewport", json: body + "}")
        guard response.status == 204 else {
            throw TestFailure("viewport report answered \(response.status): \(response.text)")
        }
    }
}

struct TestResponse {
    var status: Int
    var headers: HTTPHeaders
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension HTTPRequest {
    /// A request for `target` ("/path?query"), with Host and Content-Length set.
    static func make(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:], body: Data = Data(), port: UInt16) -> HTTPRequest {
        let parts = target.split(separator: "?", maxSplits: 1).map(String.init)
        var headers = headers
        headers[.host] = "127.0.0.1:\(port)"
        return HTTPRequest(
            method: method, version: .http11,
            target: .init(path: parts[0], query: parts.count > 1 ? parts[1] : ""),
            headers: headers, body: HTTPBodySequence(data: body))
    }
}

import Testing
