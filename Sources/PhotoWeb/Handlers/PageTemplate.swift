import Foundation
import Mustache
import NIOCore

/// The page `GET /` sends, rendered from `Templates/index.mustache` once, at start, around markers:
/// everything in it but the viewer's id and the first screen (its rows and their thumbnails'
/// preloads) is the same for the whole run, so a page load only puts those in (`PageHandler.page`).
struct PageTemplate: Sendable {
    static let contentType = "text/html; charset=utf-8"

    /// The rendered page, split where the preloads go and where the list goes; each part split where
    /// the viewer's id goes.
    private let parts: [[String]]
    /// The same parts compressed, for a gzipped page.
    private let deflatedParts: [[DeflatedPart]]

    init(context: AppContext) throws(APIError) {
        let marker = "viewer-id-0f3c9a"
        let placeholders = ["<!--preloads-0f3c9a-->", "<!--list-0f3c9a-->"]
        let configuration = context.configuration
        let values: [String: Any] = [
            "viewer": marker,
            "title": "ClassicPhotos Live",
            "basePath": configuration.basePath,
            "staticBase": context.staticBase,
            "strategy": configuration.strategy.name,
            "prefetch": configuration.strategy.prefetchMarginForDisplay,
            "prefetchMax": Defaults.prefetchMargins.upperBound,
            "rowHeight": Defaults.rowHeight,
            "reportIntervalMs": Defaults.reportIntervalMs,
            "rowWords": RowWords.json,
            "hubProtocol": HubProtocol.json,
            "preloads": placeholders[0],
            "firstScreen": placeholders[1],
        ]
        guard let html = context.templates.render(values, withTemplate: "index") else {
            throw .internal("template index.mustache is missing")
        }
        var parts: [String] = []
        var rest = html
        for placeholder in placeholders {
            let pieces = rest.components(separatedBy: placeholder)
            guard pieces.count == 2 else { throw .internal("template index.mustache must place {{{preloads}}} then {{{firstScreen}}}, once each") }
            parts.append(pieces[0])
            rest = pieces[1]
        }
        parts.append(rest)
        self.parts = parts.map { $0.components(separatedBy: marker) }
        deflatedParts = try self.parts.map { part throws(APIError) in try part.map { piece throws(APIError) in try DeflatedPart(piece) } }
    }

    /// The page for `viewer` with `screen` put in, as UTF-8.
    func body(viewer: String, screen: FirstScreen.Filling) -> ByteBuffer {
        let fill = [screen.preloads, screen.list]
        var body = ByteBuffer()
        for (position, part) in parts.enumerated() {
            for (index, piece) in part.enumerated() {
                if index > 0 { body.writeString(viewer) }
                body.writeString(piece)
            }
            if position < fill.count { body.writeString(fill[position]) }
        }
        return body
    }

    /// The same page gzipped, or nil when that does not pay: one gzip member spliced from the parts
    /// compressed ahead of time with the viewer's id as stored blocks (no compressing per load), or,
    /// for a screen with no compressed form, the page compressed now.
    func gzippedBody(viewer: String, screen: FirstScreen.Filling) -> ByteBuffer? {
        guard let fill = screen.deflated else { return Compression.gzip(body(viewer: viewer, screen: screen)) }
        var capacity = fill.reduce(0) { $0 + $1.deflated.readableBytes }
        for part in deflatedParts {
            capacity += part.reduce(0) { $0 + $1.deflated.readableBytes } + (part.count - 1) * (viewer.utf8.count + 5)
        }
        var member = GzipSplice(capacity: capacity)
        for (position, part) in deflatedParts.enumerated() {
            for (index, piece) in part.enumerated() {
                if index > 0 { member.appendStored(viewer) }
                member.append(piece)
            }
            if position < fill.count { member.append(fill[position]) }
        }
        let count = member.uncompressedCount
        let gzipped = member.finish()
        return count >= Compression.minimumBytes && gzipped.readableBytes < count ? gzipped : nil
    }
}
