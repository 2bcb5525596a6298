import FlyingFox

/// `GET /api/photos`: every row with its state, or the list's loading / failed status.
struct PhotosHandler: HTTPHandler {
    let context: AppContext

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let source = context.library.source
        return .json(EventPayloads.PhotoList(
            status: source.status, count: source.count, error: source.error, photos: context.library.photos))
    }
}

/// `GET /api/stats`: the server totals.
struct StatsHandler: HTTPHandler {
    let context: AppContext

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let pipeline = try context.loadedPipeline()
        return .json(context.stats(of: pipeline))
    }
}
