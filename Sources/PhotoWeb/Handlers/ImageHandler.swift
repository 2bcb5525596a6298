import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PhotoCodecs
import PhotoPipeline
import PhotoTransport

/// `GET /photos/N/thumbnail`, `/photos/N/preview` (the thumbnail before sepia), `/photos/N/sepia`
/// (full size, made on request) and `/photos/N/original`.
///
/// Serves only what is already there or on its way (the full-size sepia aside): asking for a
/// thumbnail never starts work the viewport did not ask for. A thumbnail still being downloaded or
/// filtered is waited for (`Defaults.thumbnailWait` at most), so a page that asks as the last byte
/// arrives gets it the moment the filter is done. A list thumbnail in memory is answered on the
/// event loop (`ready`), by the same `answer`.
struct ImageHandler: Sendable {
    /// The route, as the router and `ReadyRoutes` match it.
    static let path = "/photos/:index/:variant"

    let context: AppContext
    let answers: ImageAnswers

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let parameters = requestContext.parameters
        let index = try AppContext.photoIndex(parameters.get("index"))
        guard let variant = parameters.get("variant").flatMap(ImageVariant.init(rawValue:)) else {
            throw APIError.notFound("no such image: use thumbnail, preview, sepia or original")
        }
        // A lab lane's rows name its viewer: their images are its channel's pipeline's.
        let viewer = request.queryValue("viewer")
        let pipeline = try context.imageChannel(viewer: viewer).loadedPipeline()
        let image: CachedImage
        do {
            switch variant {
            case .sepia: image = try await pipeline.fullSizeSepia(of: index)
            case .original: image = try await pipeline.decodedOriginal(of: index)
            case .thumbnail: image = try await pipeline.readyThumbnail(of: index, waitingUpTo: context.configuration.thumbnailWait)
            default: image = try await pipeline.loadImage(variant, of: index)
            }
        } catch {
            throw APIError(error)
        }
        return Response(answer(variant, of: index, image: image, to: request.head, keep: viewer == nil))
    }

    /// The answer on the event loop: a list thumbnail (no query) the pipeline's memory holds, else
    /// nil (the router's: it reads the disk or waits). Returns at once.
    func ready(_ request: HTTPRequest, parameters: Parameters) -> ReadyResponse? {
        guard parameters.get("variant") == ImageVariant.thumbnail.rawValue, request.path?.contains("?") == false,
              let index = try? AppContext.photoIndex(parameters.get("index")),
              let image = context.library.pipeline?.thumbnailInMemory(of: index) else { return nil }
        return answer(.thumbnail, of: index, image: image, to: request, keep: true)
    }

    /// The route's one answer with `image`: the 200, or a 304 when the client's copy is current.
    private func answer(_ variant: ImageVariant, of index: Int, image: CachedImage, to request: HTTPRequest, keep: Bool) -> ReadyResponse {
        let made = answers.made(variant, of: index, from: image, keep: keep)
        return .validated(request, tag: made.tag, ok: made.ok, notModified: made.notModified, body: made.body)
    }

    /// The type `image`'s bytes are sent as.
    static func contentType(of image: CachedImage) -> String {
        image.format?.mimeType ?? "application/octet-stream"
    }
}
