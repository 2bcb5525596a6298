import Foundation
import Hummingbird
import NIOCore
import PhotoPipeline
import NIOFoundationEssentialsCompat
import PhotoCodecs

/// `GET /photos/N/thumbnail`, `/photos/N/preview` (the thumbnail before sepia), `/photos/N/sepia`
/// (full size, made on request) and `/photos/N/original`.
///
/// Serves only what is already there or on its way (the full-size sepia aside): asking for a
/// thumbnail never starts work the viewport did not ask for. A thumbnail still being downloaded or
/// filtered is waited for (`Defaults.thumbnailWait` at most), so a page that asks as the last byte
/// arrives gets it the moment the filter is done. A cached image is answered from memory, head and
/// body in one write.
struct ImageHandler: Sendable {
    let context: AppContext

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let parameters = requestContext.parameters
        let index = try AppContext.photoIndex(parameters.get("index"))
        guard let variant = parameters.get("variant").flatMap(ImageVariant.init(rawValue:)) else {
            throw APIError.notFound("no such image: use thumbnail, preview, sepia or original")
        }
        // A lab lane's rows name its viewer: their images are its channel's pipeline's.
        let pipeline = try context.imageChannel(viewer: request.queryValue("viewer")).loadedPipeline()
        let image: CachedImage
        do {
            switch variant {
            case .sepia: image = try await pipeline.fullSizeSepia(of: index)
            case .original: image = try await pipeline.decodedOriginal(of: index)
            case .thumbnail: image = try await pipeline.readyThumbnail(of: index, waitingUpTo: Defaults.thumbnailWait)
            default: image = try await pipeline.loadImage(variant, of: index)
            }
        } catch {
            throw APIError(error)
        }
        var headers = Self.validators(variant, of: index, image: image)
        if request.hasCurrentCopy(tagged: headers[.eTag] ?? "") {
            return .empty(.notModified, headers: headers)
        }
        headers[.contentType] = Self.contentType(of: image)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: image.data)))
    }

    /// The fields every answer with `image` carries, a 304 too (`ReadyThumbnails` sends the same).
    static func validators(_ variant: ImageVariant, of index: Int, image: CachedImage) -> HTTPFields {
        // URLs are the same across restarts and data sources: the browser keeps the bytes but
        // revalidates with the ETag each time.
        [.eTag: "\"\(variant.rawValue)-\(index)-\(image.contentHash)\"", .cacheControl: "no-cache"]
    }

    static func contentType(of image: CachedImage) -> String {
        image.format?.mimeType ?? "application/octet-stream"
    }
}
