import FlyingFox
import Foundation

extension HTTPResponse {
    /// A 200 (or `status`) response with `value` as JSON, never cached.
    static func json(_ value: some Encodable, status: HTTPStatusCode = .ok) -> HTTPResponse {
        HTTPResponse(
            statusCode: status,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: EventPayloads.json(value))
    }
}

extension HTTPRequest {
    /// The body, refusing one larger than `limit` before reading it when the length is declared.
    func body(limit: Int) async throws -> Data {
        if let declared = headers[.contentLength].flatMap(Int.init), declared > limit {
            throw APIError.payloadTooLarge(limit: limit)
        }
        let data = try await bodyData
        guard data.count <= limit else { throw APIError.payloadTooLarge(limit: limit) }
        return data
    }

    /// The value of query parameter `name`.
    func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}
