import FlyingFox
import Foundation
import PhotoPipeline
import Synchronization

/// `GET /static/FILE`: the files of `Public/` (flat, no subfolders), with content types, an ETag
/// and caching. Files are read once and kept: they are small and never change while running.
final class StaticFileHandler: HTTPHandler, Sendable {
    private let directory: URL
    private let files = Mutex<[String: (data: Data, tag: String)]>([:])

    init(directory: String) {
        self.directory = URL(fileURLWithPath: directory)
    }

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let name = request.routeParameters["file"],
              !name.hasPrefix("."), !name.contains("/"), !name.contains("\\"),
              let file = load(name)
        else {
            throw APIError.notFound("no such static file")
        }
        if request.headers[.ifNoneMatch] == file.tag {
            return HTTPResponse(statusCode: .notModified, headers: HTTPHeaders([.eTag: file.tag]))
        }
        let headers: HTTPHeaders = [.contentType: Self.contentType(of: name), .eTag: file.tag, .cacheControl: "public, max-age=300"]
        return HTTPResponse(statusCode: .ok, headers: headers, body: file.data)
    }

    private func load(_ name: String) -> (data: Data, tag: String)? {
        if let cached = files.withLock({ $0[name] }) { return cached }
        guard let data = try? Data(contentsOf: directory.appendingPathComponent(name)) else { return nil }
        let file = (data: data, tag: "\"\(ContentHash.of(data))\"")
        files.withLock { $0[name] = file }
        return file
    }

    static func contentType(of name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "ico": "image/x-icon"
        case "json": "application/json"
        case "html": "text/html; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
