import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOFoundationEssentialsCompat
import PhotoTransport

/// `GET /api/photos?from=N&limit=M`: a page of rows with their states (at most `PhotoPage.maxLimit`,
/// so an answer costs the same at 300 rows or 100,000), or the list's loading / failed status.
///
/// A loaded list's answers are made once per list version and page (`PhotoListAnswers`) and carry
/// an ETag: a crowd asking while nothing changed costs a lookup, and a client whose copy is current
/// (`If-None-Match`) gets a 304. A kept answer is sent on the event loop (`ready`), by the same `answer`.
struct PhotosHandler: Sendable {
    /// The route, as the router and `ReadyRoutes` match it.
    static let path = "/api/photos"

    let context: AppContext

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let page = try Self.page(in: Self.query(of: request.head))
        guard let pipeline = context.library.pipeline else {
            return Compression.response(
                EventPayloads.json(context.photoList.list(page)), contentType: "application/json",
                headers: [.cacheControl: "no-store"], for: request)
        }
        return Response(Self.answer(context.photoList.made(Self.key(page, request.head), of: pipeline), to: request.head))
    }

    /// The answer on the event loop: one kept for the list's version now, else nil (the router's:
    /// making JSON is no work for an event loop, and a query with more than `from` and `limit` is
    /// left to it). Returns at once.
    func ready(_ request: HTTPRequest, parameters: Parameters) -> ReadyResponse? {
        let query = Self.query(of: request)
        guard query.allSatisfy({ $0.key == "from" || $0.key == "limit" }), let page = try? Self.page(in: query),
              let pipeline = context.library.pipeline,
              let made = context.photoList.kept(Self.key(page, request), of: pipeline) else { return nil }
        return Self.answer(made, to: request)
    }

    /// The route's one answer from `made`: the 200, or a 304 when the client's copy is current.
    private static func answer(_ made: PhotoListAnswers.Made, to request: HTTPRequest) -> ReadyResponse {
        .validated(request, tag: made.tag, ok: made.ok, notModified: made.notModified, body: made.body)
    }

    /// `request`'s query.
    private static func query(of request: HTTPRequest) -> Parameters {
        URI(request.path ?? "").queryParameters
    }

    /// The page a query asks for (`from`, `limit`), or a 400 saying what is wrong.
    private static func page(in query: Parameters) throws(APIError) -> PhotoPage {
        try PhotoPage(from: query.get("from"), limit: query.get("limit"))
    }

    /// The kept answers `request` takes for `page`: gzipped or not.
    private static func key(_ page: PhotoPage, _ request: HTTPRequest) -> PhotoListAnswers.Key {
        .init(page: page, gzip: Compression.accepted(by: request.headerFields))
    }
}

/// The page `GET /api/photos` asks for, parsed into its bounds before any arithmetic.
struct PhotoPage: Hashable, Sendable {
    /// The most rows one answer carries (about 130 KB of JSON).
    static let maxLimit = 1_000

    /// The page a request without `from` and `limit` gets.
    static let top = PhotoPage(from: 0, limit: maxLimit)

    let from: Int
    let limit: Int

    private init(from: Int, limit: Int) {
        (self.from, self.limit) = (from, limit)
    }

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
