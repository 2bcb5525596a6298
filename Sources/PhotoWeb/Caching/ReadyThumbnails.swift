import Foundation
import HTTPTypes
import Locking
import NIOCore
import NIOFoundationEssentialsCompat
import PhotoPipeline
import PhotoTransport
import Synchronization

/// The list's cached thumbnails as whole responses, so `GET` and `HEAD /photos/N/thumbnail` (no
/// query: the list's own pipeline) are answered on the event loop (`ReadyResponseHandler`) with what
/// the route would answer: the same status, fields and bytes, and the same count in `/metrics`.
///
/// Never stale: each request asks the pipeline's memory cache for the thumbnail (the route's first
/// look too), and a ready response is used only while it was made from those very bytes (their
/// content hash). A thumbnail memory does not hold (the list not loaded, a cold start emptied it,
/// evicted, not made yet, no such photo) goes to the route, which reads the disk or waits for it.
///
/// Lock: `ready` is a leaf, taken after the pipeline's lock is released.
final class ReadyThumbnails: ReadyResponding {
    /// One thumbnail's responses, made once from the bytes with `contentHash`.
    private struct Made {
        let contentHash: String
        let tag: String
        let ok: HTTPResponse
        let notModified: HTTPResponse
        let body: ByteBuffer
    }

    /// The most body bytes kept ready (a copy of the memory cache's bytes): past it, others go (in no
    /// particular order) and are made again when asked.
    static let budgetBytes = 32 * 1024 * 1024

    private let library: PhotoLibrary
    /// Fields every answer gets from the router's middleware (Strict-Transport-Security, nosniff).
    private let routerFields: HTTPFields
    private let meters: [HTTPRequest.Method: ValidatedMeters]
    private let ready = Locked((made: [Int: Made](), bytes: 0))
    /// Requests answered here, for tests.
    let answered = Atomic<Int>(0)

    /// `routerFields`: what the router's middleware adds to every answer (`HTTPFields.routerMiddleware`).
    init(library: PhotoLibrary, metrics: ServerMetrics, routerFields: HTTPFields) {
        (self.library, self.routerFields) = (library, routerFields)
        meters = metrics.okAndNotModifiedMeters(path: "/photos/{index}/{variant}")
    }

    func readyResponse(to request: HTTPRequest, on channel: any Channel) -> ReadyResponse? {
        let start = ContinuousClock.now
        guard let meter = meters[request.method], let index = Self.thumbnailIndex(request.path),
              let pipeline = library.pipeline, let image = pipeline.thumbnailInMemory(of: index) else { return nil }
        let made = self.made(index, from: image)
        answered.add(1, ordering: .relaxed)
        return .validated(request, tag: made.tag, ok: made.ok, notModified: made.notModified, body: made.body, meters: meter, since: start)
    }

    /// The responses for `image` as photo `index`'s thumbnail: the kept ones when made from its bytes.
    private func made(_ index: Int, from image: CachedImage) -> Made {
        if let kept = ready.withLock({ $0.made[index] }), kept.contentHash == image.contentHash { return kept }
        let made = make(index, from: image)
        ready.withLock { ready in
            if let old = ready.made.updateValue(made, forKey: index) { ready.bytes -= old.body.readableBytes }
            ready.bytes += made.body.readableBytes
            while ready.bytes > Self.budgetBytes, let (other, dropped) = ready.made.first(where: { $0.key != index }) {
                ready.made[other] = nil
                ready.bytes -= dropped.body.readableBytes
            }
        }
        return made
    }

    /// The route's answers, field for field in its order (`ImageHandler`, then the middleware).
    private func make(_ index: Int, from image: CachedImage) -> Made {
        let validators = ImageHandler.validators(.thumbnail, of: index, image: image)
        var ok = validators
        ok[.contentType] = ImageHandler.contentType(of: image)
        ok[.contentLength] = String(image.data.count)
        ok.append(contentsOf: routerFields)
        var notModified = validators
        notModified[.contentLength] = "0"
        notModified.append(contentsOf: routerFields)
        return Made(
            contentHash: image.contentHash, tag: validators[.eTag] ?? "",
            ok: HTTPResponse(status: .ok, headerFields: ok), notModified: HTTPResponse(status: .notModified, headerFields: notModified),
            body: ByteBuffer(data: image.data))
    }

    /// N of `/photos/N/thumbnail` exactly (no query, no other form), else nil.
    static func thumbnailIndex(_ path: String?) -> Int? {
        guard let path, path.hasPrefix("/photos/"), path.hasSuffix("/thumbnail") else { return nil }
        let digits = path.utf8.dropFirst(8).dropLast(10)
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
}
