import Foundation
import HTTPTypes
import Locking
import NIOCore
import NIOFoundationEssentialsCompat
import PhotoPipeline
import PhotoTransport

/// `GET /photos/N/VARIANT`'s answers: made here from an image's bytes, the one field list of the
/// route (`ImageHandler.answer`, called by the router and by the event loop's `ReadyRoutes`), and,
/// for the list's thumbnails, kept, so a cached thumbnail costs a lookup and no copy.
///
/// Never stale: a kept answer is used only while it was made from the very bytes asked about (their
/// content hash).
///
/// Lock: `kept` is a leaf, taken after the pipeline's lock is released.
final class ImageAnswers: Sendable {
    /// One image's answers, made from the bytes with `contentHash`.
    struct Made: Sendable {
        let contentHash: String
        let tag: String
        let ok: HTTPResponse
        let notModified: HTTPResponse
        let body: ByteBuffer
    }

    /// The most body bytes kept (a copy of the memory cache's bytes): past it, others go (in no
    /// particular order) and are made again when asked.
    static let budgetBytes = 32 * 1024 * 1024

    /// Fields every answer gets from the router's middleware (Strict-Transport-Security, nosniff).
    private let routerFields: HTTPFields
    private let kept = Locked((made: [Int: Made](), bytes: 0))

    /// `routerFields`: what the router's middleware adds to every answer (`HTTPFields.routerMiddleware`).
    init(routerFields: HTTPFields) {
        self.routerFields = routerFields
    }

    /// The answers for `image` as photo `index`'s `variant`; a list thumbnail's (`keep`) kept while
    /// made from these bytes.
    func made(_ variant: ImageVariant, of index: Int, from image: CachedImage, keep: Bool) -> Made {
        guard keep, variant == .thumbnail else { return make(variant, of: index, from: image) }
        if let kept = kept.withLock({ $0.made[index] }), kept.contentHash == image.contentHash { return kept }
        let made = make(variant, of: index, from: image)
        kept.withLock { kept in
            if let old = kept.made.updateValue(made, forKey: index) { kept.bytes -= old.body.readableBytes }
            kept.bytes += made.body.readableBytes
            while kept.bytes > Self.budgetBytes, let (other, dropped) = kept.made.first(where: { $0.key != index }) {
                kept.made[other] = nil
                kept.bytes -= dropped.body.readableBytes
            }
        }
        return made
    }

    /// The route's fields in the order they are sent: the validators, then `Content-Type` and
    /// `Content-Length` (a 304: `Content-Length: 0`), then the middleware's.
    private func make(_ variant: ImageVariant, of index: Int, from image: CachedImage) -> Made {
        // URLs are the same across restarts and data sources: the browser keeps the bytes but
        // revalidates with the ETag each time.
        let tag = "\"\(variant.rawValue)-\(index)-\(image.contentHash)\""
        let validators: HTTPFields = [.eTag: tag, .cacheControl: "no-cache"]
        var ok = validators
        ok[.contentType] = ImageHandler.contentType(of: image)
        ok[.contentLength] = String(image.data.count)
        ok.append(contentsOf: routerFields)
        var notModified = validators
        notModified[.contentLength] = "0"
        notModified.append(contentsOf: routerFields)
        return Made(
            contentHash: image.contentHash, tag: tag,
            ok: HTTPResponse(status: .ok, headerFields: ok), notModified: HTTPResponse(status: .notModified, headerFields: notModified),
            body: ByteBuffer(data: image.data))
    }
}
