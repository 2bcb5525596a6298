import FlyingFox
import Foundation

/// `POST /api/viewport`: `{"viewer": ID, "scrolling": true|false, "first": N, "last": M}`.
///
/// Scrolling suspends the viewer's queued work (the tutorial's `scrollViewWillBeginDragging`);
/// a report with scrolling false runs `loadImagesForOnscreenRows` for rows first...last.
struct ViewportHandler: HTTPHandler {
    let context: AppContext

    /// A parsed, validated report.
    struct Report: Equatable {
        var viewer: String
        var scrolling: Bool
        var rows: ClosedRange<Int>?
    }

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let report = try Self.parse(try await request.body(limit: context.configuration.maxRequestBodyBytes))
        let session = try context.session(report.viewer)
        guard let pipeline = context.library.pipeline else {
            throw APIError.conflict("the photo list is not loaded yet (\(context.library.source.status))")
        }
        if let rows = report.rows, rows.upperBound >= pipeline.records.count {
            throw APIError.unprocessable("rows \(rows.lowerBound)...\(rows.upperBound) are past the end of the list (\(pipeline.records.count) photos, last row \(pipeline.records.count - 1))")
        }
        let controller = session.controller(on: pipeline, strategy: context.configuration.strategy)
        if report.scrolling {
            controller.suspendAllOperations()
        } else if let rows = report.rows {
            controller.loadImagesForOnscreenRows(rows)
        }
        return HTTPResponse(statusCode: .noContent, headers: HTTPHeaders([.cacheControl: "no-store"]))
    }

    /// The body as sent; every field optional so a missing one gets its own message.
    private struct Body: Decodable {
        var viewer: String?
        var scrolling: Bool?
        var first: Int?
        var last: Int?
    }

    /// Parses the body, saying exactly what is wrong with a bad one.
    static func parse(_ data: Data) throws(APIError) -> Report {
        guard !data.isEmpty else { throw .badRequest("empty body: expected JSON {\"viewer\", \"scrolling\", \"first\", \"last\"}") }
        let body: Body
        do {
            body = try JSONDecoder().decode(Body.self, from: data)
        } catch DecodingError.typeMismatch(_, let context) {
            guard let field = context.codingPath.last?.stringValue else { throw .badRequest("body is not a JSON object") }
            throw .badRequest("\"\(field)\" has the wrong type: " + expectation(of: field))
        } catch {
            throw .badRequest("body is not valid JSON")
        }
        guard let viewer = body.viewer, !viewer.isEmpty else { throw .badRequest("\"viewer\" must be a non-empty string") }
        guard let scrolling = body.scrolling else { throw .badRequest("\"scrolling\" must be true or false") }
        switch (body.first, body.last) {
        case (nil, nil):
            guard scrolling else { throw .badRequest("\"first\" and \"last\" are required when not scrolling") }
            return Report(viewer: viewer, scrolling: true, rows: nil)
        case (let first?, let last?):
            guard first >= 0 else { throw .unprocessable("\"first\" must not be negative (got \(first))") }
            guard first <= last else { throw .unprocessable("\"first\" (\(first)) is after \"last\" (\(last))") }
            return Report(viewer: viewer, scrolling: scrolling, rows: first...last)
        default:
            throw .badRequest("\"first\" and \"last\" go together")
        }
    }

    private static func expectation(of field: String) -> String {
        switch field {
        case "viewer": "a string"
        case "scrolling": "true or false"
        default: "a whole number"
        }
    }
}
