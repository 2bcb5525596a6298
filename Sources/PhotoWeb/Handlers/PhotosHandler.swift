import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat

/// `GET /api/photos?from=N&limit=M`: a page of rows with their states (at most `PhotoPage.maxLimit`,
/// so an answer costs the same at 300 rows or 100,000), or the list's loading / failed status.
///
/// A loaded list's answers are made once per list version (`ListVersion`) and page, and carry an
/// ETag: a crowd asking while nothing changed costs a lookup, and a client whose copy is current
/// (`If-None-Match`) gets a 304.
struct PhotosHandler: Sendable {
    /// One answer as sent: its bytes, gzipped or not (its tag comes from its key and version).
    struct Body: Sendable {
        let bytes: ByteBuffer
        let gzipped: Bool
    }

    /// A page of the list, in one encoding.
    struct Key: Hashable, Sendable {
        let page: PhotoPage
        let gzip: Bool
    }

    let context: AppContext
    let cache = ListVersionCache<Key, Body>(capacity: 64)

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let page = try PhotoPage(from: request.queryValue("from"), limit: request.queryValue("limit"))
        guard let pipeline = context.library.pipeline else {
            return Compression.response(
                EventPayloads.json(list(page)), contentType: "application/json", headers: [.cacheControl: "no-store"], for: request)
        }
        // The version before the rows: the body is at least as new as the tag says.
        let version = ListVersion(of: pipeline)
        let key = Key(page: page, gzip: Compression.accepted(by: request))
        let tag = version.entityTag("\(page.from).\(page.limit)\(key.gzip ? ".gz" : "")")
        var headers: HTTPFields = [.cacheControl: "no-cache", .vary: "Accept-Encoding", .eTag: tag]
        if request.hasCurrentCopy(tagged: tag) { return .empty(.notModified, headers: headers) }
        let body = cache.value(for: key, at: version) {
            let json = EventPayloads.json(list(page))
            let compressed = key.gzip ? Compression.gzip(json) : nil
            return Body(bytes: compressed ?? ByteBuffer(data: json), gzipped: compressed != nil)
        }
        headers[.contentType] = "application/json"
        if body.gzipped { headers[.contentEncoding] = "gzip" }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body.bytes))
    }

    /// The rows of `page` and the list's status, as they are now.
    private func list(_ page: PhotoPage) -> EventPayloads.PhotoList {
        let source = context.library.source
        let rows = page.rows(of: source.count)
        return EventPayloads.PhotoList(
            status: source.status, count: source.count, error: source.error,
            from: rows.lowerBound, next: rows.upperBound < source.count ? rows.upperBound : nil,
            photos: context.library.photos(in: rows))
    }
}

/// The page `GET /api/photos` asks for, parsed into its bounds before any arithmetic.
struct PhotoPage: Hashable, Sendable {
    /// The most rows one answer carries (about 130 KB of JSON).
    static let maxLimit = 1_000

    let from: Int
    let limit: Int

    init(from: String?, limit: String?) throws(APIError) {
        self.from = try Self.parse(from, name: "from", default: 0, in: 0...Int.max)
        self.limit = try Self.parse(limit, name: "limit", default: Self.maxLimit, in: 1...Self.maxLimit)
    }

    /// The rows of a list of `count` this page covers (empty past the end).
    func rows(of count: Int) -> Range<Int> {
        let start = min(from, count)
        return start..<(start + min(limit, count - start))
    }

    private static func parse(_ text: String?, name: String, default value: Int, in range: ClosedRange<Int>) throws(APIError) -> Int {
        guard let text else { return value }
        guard let number = Int(text), range.contains(number) else {
            let bounds = range.upperBound == .max ? "of at least \(range.lowerBound)" : "in \(range.lowerBound)...\(range.upperBound)"
            throw .badRequest("'\(name)' must be a whole number \(bounds), not '\(text.prefix(40))'")
        }
        return number
    }
}

/// `GET /api/stats`: the server totals.
struct StatsHandler: Sendable {
    let context: AppContext

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let pipeline = try context.loadedPipeline()
        return .json(context.stats(of: pipeline))
    }
}
