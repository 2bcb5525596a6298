import Foundation
import Hummingbird

/// `GET /api/photos?from=N&limit=M`: a page of rows with their states (at most `PhotoPage.maxLimit`,
/// so an answer costs the same at 300 rows or 100,000), or the list's loading / failed status.
struct PhotosHandler: Sendable {
    let context: AppContext

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let page = try PhotoPage(from: request.queryValue("from"), limit: request.queryValue("limit"))
        let source = context.library.source
        let rows = page.rows(of: source.count)
        let list = EventPayloads.PhotoList(
            status: source.status, count: source.count, error: source.error,
            from: rows.lowerBound, next: rows.upperBound < source.count ? rows.upperBound : nil,
            photos: context.library.photos(in: rows))
        return Compression.response(
            EventPayloads.json(list), contentType: "application/json", headers: [.cacheControl: "no-store"], for: request)
    }
}

/// The page `GET /api/photos` asks for, parsed into its bounds before any arithmetic.
struct PhotoPage: Equatable {
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
