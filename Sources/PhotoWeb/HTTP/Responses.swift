import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat
import PhotoTransport

extension Response {
    /// A 200 (or `status`) response with `value` as JSON, never cached.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(data: EventPayloads.json(value))))
    }

    /// A body-less answer (204, 304) with these headers.
    static func empty(_ status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        Response(status: status, headers: headers)
    }
}

/// Gzip for text, when the client accepts it: the page, scripts, styles, JSON.
enum Compression {
    /// Bodies smaller than this go as they are: the gzip header and a round of CPU cost more than they save.
    static let minimumBytes = 1_024

    /// Whether `request` accepts gzip (`Accept-Encoding: gzip`, not with `q=0`).
    static func accepted(by request: Request) -> Bool {
        accepted(by: request.headers)
    }

    /// Whether a request with these fields accepts gzip (`Accept-Encoding: gzip`, not with `q=0`).
    static func accepted(by fields: HTTPFields) -> Bool {
        guard let value = fields[.acceptEncoding]?.lowercased() else { return false }
        return value.split(separator: ",").contains { part in
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.first == "gzip" || fields.first == "*" else { return false }
            let quality = fields.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return quality > 0
        }
    }

    static func isCompressible(contentType: String) -> Bool {
        contentType.hasPrefix("text/") || contentType.hasPrefix("application/json")
            || contentType.hasPrefix("image/svg+xml") || contentType.hasPrefix("application/javascript")
    }

    /// `data` gzipped, or nil when that would not pay.
    static func gzip(_ data: Data) -> ByteBuffer? {
        gzip(ByteBuffer(data: data))
    }

    /// `buffer`'s bytes gzipped, or nil when that would not pay.
    static func gzip(_ buffer: ByteBuffer) -> ByteBuffer? {
        guard buffer.readableBytes >= minimumBytes else { return nil }
        var buffer = buffer
        let size = buffer.readableBytes
        guard let compressed = try? buffer.compress(with: .gzip()), compressed.readableBytes < size else { return nil }
        return compressed
    }

    /// A text response: gzipped when `request` accepts it and it pays, with `Vary` either way
    /// (caches must keep the two forms apart).
    static func response(
        _ data: Data, contentType: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], for request: Request
    ) -> Response {
        response(ByteBuffer(data: data), contentType: contentType, status: status, headers: headers, for: request)
    }

    /// `response(_:contentType:…)` for a body in a buffer.
    static func response(
        _ body: ByteBuffer, contentType: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], for request: Request
    ) -> Response {
        var headers = headers
        headers[.contentType] = contentType
        headers[.vary] = "Accept-Encoding"
        if accepted(by: request), let compressed = gzip(body) {
            headers[.contentEncoding] = "gzip"
            return Response(status: status, headers: headers, body: .init(byteBuffer: compressed))
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }
}

extension Request {
    /// The body, refusing one larger than `limit` (before reading it when the length is declared).
    func body(limit: Int) async throws -> Data {
        if let declared = headers[.contentLength].flatMap(Int.init), declared > limit {
            throw APIError.payloadTooLarge(limit: limit)
        }
        do {
            let buffer = try await body.collect(upTo: limit)
            return Data(buffer.readableBytesView)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError.payloadTooLarge(limit: limit)
        }
    }

    /// Whether `If-None-Match` matches `tag` (`IfNoneMatch`): the client's copy is current, a 304 will do.
    func hasCurrentCopy(tagged tag: String) -> Bool {
        headers.namesCurrentCopy(tagged: tag)
    }

    /// The value of query parameter `name`.
    func queryValue(_ name: String) -> String? {
        uri.queryParameters.get(name)
    }
}

extension HTTPFields {
    /// Whether these request fields' `If-None-Match` matches `tag` (`IfNoneMatch`: weakly, in a list, or `*`).
    func namesCurrentCopy(tagged tag: String) -> Bool {
        IfNoneMatch.matches(self, currentTag: tag)
    }
}

extension HTTPField.Name {
    static let lastEventID = Self("Last-Event-ID")!
    static let xAccelBuffering = Self("X-Accel-Buffering")!
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let timingAllowOrigin = Self("Timing-Allow-Origin")!
}
