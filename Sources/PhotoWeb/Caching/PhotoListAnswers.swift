import Foundation
import HTTPTypes
import NIOCore
import NIOFoundationEssentialsCompat
import PhotoPipeline

/// `GET /api/photos`'s answers for a loaded list, made once per list version (`ListVersion`) and
/// page: the route (`PhotosHandler`) makes and keeps them, and sends the kept ones on the event loop too
/// (`PhotosHandler.ready`).
///
/// Never stale: an answer is looked up under the version read before its rows, and kept only for it.
final class PhotoListAnswers: Sendable {
    /// A page of the list, in one encoding.
    struct Key: Hashable, Sendable {
        let page: PhotoPage
        let gzip: Bool
    }

    /// One page's answers at one version, as they are sent (ending with the router middleware's fields).
    struct Made: Sendable {
        let tag: String
        let ok: HTTPResponse
        let notModified: HTTPResponse
        let body: ByteBuffer
    }

    private let library: PhotoLibrary
    private let routerFields: HTTPFields
    private let cache = ListVersionCache<Key, Made>(capacity: 64)

    /// `routerFields`: what the router's middleware adds to every answer (`HTTPFields.routerMiddleware`).
    init(library: PhotoLibrary, routerFields: HTTPFields) {
        (self.library, self.routerFields) = (library, routerFields)
    }

    /// The answers for `key` at `pipeline`'s version now: the kept ones, or made now (by the caller:
    /// the route's task) and kept.
    func made(_ key: Key, of pipeline: PhotoPipeline) -> Made {
        // The version before the rows: the body is at least as new as the tag says.
        let version = ListVersion(of: pipeline)
        return cache.value(for: key, at: version) { make(key, at: version) }
    }

    /// The answers kept for `key` at `pipeline`'s version now, or nil (nothing is made: the event loop's look).
    func kept(_ key: Key, of pipeline: PhotoPipeline) -> Made? {
        cache.kept(for: key, at: ListVersion(of: pipeline))
    }

    /// The rows of `page` and the list's status, as they are now.
    func list(_ page: PhotoPage) -> EventPayloads.PhotoList {
        let source = library.source
        let rows = page.rows(of: source.count)
        return EventPayloads.PhotoList(
            status: source.status, count: source.count, error: source.error,
            from: rows.lowerBound, next: rows.upperBound < source.count ? rows.upperBound : nil,
            photos: library.photos(in: rows))
    }

    /// The route's answers, its fields in the order they are sent (`Content-Length` after the
    /// handler's fields, then the middleware's).
    private func make(_ key: Key, at version: ListVersion) -> Made {
        let json = EventPayloads.json(list(key.page))
        let compressed = key.gzip ? Compression.gzip(json) : nil
        let body = compressed ?? ByteBuffer(data: json)
        let tag = version.entityTag("\(key.page.from).\(key.page.limit)\(key.gzip ? ".gz" : "")")
        let validators: HTTPFields = [.cacheControl: "no-cache", .vary: "Accept-Encoding", .eTag: tag]
        var ok = validators
        ok[.contentType] = "application/json"
        if compressed != nil { ok[.contentEncoding] = "gzip" }
        ok[.contentLength] = String(body.readableBytes)
        var notModified = validators
        notModified[.contentLength] = "0"
        return Made(
            tag: tag, ok: HTTPResponse(status: .ok, headerFields: ok + routerFields),
            notModified: HTTPResponse(status: .notModified, headerFields: notModified + routerFields), body: body)
    }
}
