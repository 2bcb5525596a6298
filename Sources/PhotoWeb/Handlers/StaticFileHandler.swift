import Foundation
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat

/// `GET /static/v/VERSION/PATH` (what the page names: cached for a year, the version changes with
/// any file's content) and `GET /static/PATH` (the same files, revalidated by ETag each time); and
/// `GET /openapi.json`, one of them.
struct StaticFileHandler: Sendable {
    let files: StaticFiles

    func handle(_ request: Request, context: PhotoRequestContext) async throws -> Response {
        var path = context.parameters.getCatchAll()
        var cacheControl = "no-cache"
        if path.count > 2, path[0] == "v" {
            // An old version's name gets today's file, but only revalidated: it must not be kept
            // for a year under a name that promised other bytes.
            if path[1] == files.version { cacheControl = "public, max-age=31536000, immutable" }
            path = Array(path.dropFirst(2))
        }
        return try respond(with: path, cacheControl: cacheControl, to: request)
    }

    /// `GET /openapi.json`: the HTTP API's contract (`Public/openapi.json`), revalidated each time.
    func contract(_ request: Request, context: PhotoRequestContext) async throws -> Response {
        try respond(with: ["openapi.json"], cacheControl: "no-cache", to: request)
    }

    /// The file at `path`, gzipped when accepted, or `304` when the client's copy is current.
    private func respond(with path: [Substring], cacheControl: String, to request: Request) throws -> Response {
        guard let file = files.file(at: path) else {
            throw APIError.notFound("no such static file")
        }
        let gzip = file.gzipped != nil && Compression.accepted(by: request)
        let tag = gzip ? String(file.tag.dropLast()) + "-gz\"" : file.tag
        var headers: HTTPFields = [.eTag: tag, .cacheControl: cacheControl]
        if file.gzipped != nil { headers[.vary] = "Accept-Encoding" }
        if request.hasCurrentCopy(tagged: tag) {
            return .empty(.notModified, headers: headers)
        }
        headers[.contentType] = file.contentType
        if gzip, let gzipped = file.gzipped {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: gzipped)))
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: file.data)))
    }
}
