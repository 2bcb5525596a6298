import Foundation
import Hummingbird

/// `GET /api/photos`: every row with its state, or the list's loading / failed status.
struct PhotosHandler: Sendable {
    let context: AppContext

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let source = context.library.source
        let list = EventPayloads.PhotoList(status: source.status, count: source.count, error: source.error, photos: context.library.photos)
        return Compression.response(
            EventPayloads.json(list), contentType: "application/json", headers: [.cacheControl: "no-store"], for: request)
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
