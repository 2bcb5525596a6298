import FlyingFox
import Foundation
import PhotoPipeline

/// `GET /photos/N/thumbnail`, `/photos/N/preview` (the thumbnail before sepia), `/photos/N/sepia`
/// (full size, made on request) and `/photos/N/original`.
///
/// Serves only what is already there (the full-size sepia aside): asking for a thumbnail never
/// starts work the viewport did not ask for.
struct ImageHandler: HTTPHandler {
    let context: AppContext

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let parameters = request.routeParameters
        let index = try AppContext.photoIndex(parameters["index"])
        guard let variant = parameters["variant"].flatMap(ImageVariant.init(rawValue:)) else {
            throw APIError.notFound("no such image: use thumbnail, preview, sepia or original")
        }
        let pipeline = try context.loadedPipeline()
        let image: CachedImage
        do {
            image = variant == .sepia ? try await pipeline.fullSizeSepia(of: index) : try await pipeline.loadImage(variant, of: index)
        } catch {
            throw APIError(error)
        }
        let tag = "\"\(variant.rawValue)-\(index)-\(image.contentHash)\""
        if request.headers[.ifNoneMatch] == tag {
            return HTTPResponse(statusCode: .notModified, headers: HTTPHeaders([.eTag: tag]))
        }
        let headers: HTTPHeaders = [
            .contentType: image.format?.mimeType ?? "application/octet-stream",
            .eTag: tag,
            // URLs are the same across restarts and data sources: let the browser keep the bytes but
            // revalidate with the ETag each time.
            .cacheControl: "no-cache",
        ]
        return HTTPResponse(statusCode: .ok, headers: headers, body: image.data)
    }
}
