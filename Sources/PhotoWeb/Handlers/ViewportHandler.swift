import Foundation
import Hummingbird
import PhotoPipeline

/// `POST /api/viewport`: `{"viewer": ID, "scrolling": true|false, "first": N, "last": M}`.
///
/// Scrolling suspends the viewer's queued work (the tutorial's `scrollViewWillBeginDragging`), except
/// a reader's slow scroll reported with its rows, which keeps loading them and what lies ahead;
/// a report with scrolling false runs `loadImagesForOnscreenRows` for rows first...last; `"hidden":
/// true` (the tab cannot be seen) gives up the viewer's work until its next report with rows;
/// `"showing": {"first", "last"}` without rows (a presenter's page in a person's scroll; `scrolling`
/// says whether that scroll was told) moves the presenter's followers there and starts nothing.
///
/// The handler only translates HTTP: it parses and checks the report and hands it to the viewer's
/// session (`ViewerSession.receive`), which owns the viewer's reaction to it.
///
/// A report's work is bounded whatever the list: at most `maxVisibleRows` rows on screen (`422`
/// past it), and a viewer's reports are handled one at a time, coalesced to the latest
/// (`LatestReport`): one superseded before it is handled is answered `204` and dropped.
struct ViewportHandler: Sendable {
    let context: AppContext

    /// Rows a report may say are on screen: far more than any screen holds (80 px rows: 2,160 px
    /// of screen at 25 % zoom is 108), and a bound on what one report can make the server do.
    static let maxVisibleRows = 200

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let report = try Self.parse(try await request.body(limit: context.configuration.maxRequestBodyBytes))
        let session = try context.session(report.viewer)
        let pipeline = try session.channel.loadedPipeline()
        for rows in [report.rows, report.showing].compactMap(\.self) {
            if rows.upperBound >= pipeline.entries.count {
                throw APIError.unprocessable("rows \(rows.lowerBound)...\(rows.upperBound) are past the end of the list (\(pipeline.entries.count) photos, last row \(pipeline.entries.count - 1))")
            }
            // Counted only now: the rows are within the list, so the count cannot overflow.
            if rows.count > Self.maxVisibleRows {
                throw APIError.unprocessable("at most \(Self.maxVisibleRows) rows can be on screen at once (got \(rows.count), rows \(rows.lowerBound)...\(rows.upperBound))")
            }
        }
        // A lab follower's watcher is refused; a presented lab's driver has its place told to its followers.
        try context.labs.presentations.reported(report, by: session)
        session.receive(report, on: pipeline, .init(
            presentations: context.presentations, firstScreens: context.firstScreens, defaultStrategy: context.configuration.strategy))
        return .empty(.noContent, headers: [.cacheControl: "no-store"])
    }

    /// Parses the body, saying exactly what is wrong with a bad one.
    static func parse(_ data: Data) throws(APIError) -> ViewportReport {
        guard !data.isEmpty else { throw .badRequest("empty body: expected JSON {\"viewer\", \"scrolling\", \"first\", \"last\"}") }
        guard let object = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) else {
            throw .badRequest("body is not valid JSON")
        }
        guard let fields = object as? [String: Any] else { throw .badRequest("body is not a JSON object") }
        guard let viewer = try RequestFields.field("viewer", String.self, in: fields), !viewer.isEmpty else {
            throw .badRequest("\"viewer\" must be a non-empty string")
        }
        if try RequestFields.field("hidden", Bool.self, in: fields) == true {
            return ViewportReport(viewer: viewer, scrolling: false, rows: nil, strategy: try RequestFields.strategy(in: fields), hidden: true)
        }
        guard let scrolling = try RequestFields.field("scrolling", Bool.self, in: fields) else {
            throw .badRequest("\"scrolling\" must be true or false")
        }
        let strategy = try RequestFields.strategy(in: fields)
        switch (try RequestFields.field("first", Int.self, in: fields), try RequestFields.field("last", Int.self, in: fields)) {
        case (nil, nil):
            let showing = try showing(in: fields)
            guard scrolling || showing != nil else { throw .badRequest("\"first\" and \"last\" are required when not scrolling") }
            return ViewportReport(viewer: viewer, scrolling: scrolling, rows: nil, strategy: strategy, showing: showing)
        case (let first?, let last?):
            guard fields["showing"] == nil || fields["showing"] is NSNull else {
                throw .badRequest("\"showing\" is for a scroll that sends no rows: leave out \"first\" and \"last\" with it")
            }
            guard first >= 0 else { throw .unprocessable("\"first\" must not be negative (got \(first))") }
            guard first <= last else { throw .unprocessable("\"first\" (\(first)) is after \"last\" (\(last))") }
            return ViewportReport(viewer: viewer, scrolling: scrolling, rows: first...last, strategy: strategy)
        default:
            throw .badRequest("\"first\" and \"last\" go together")
        }
    }

    /// The optional `"showing": {"first", "last"}` of a scroll reported without rows.
    private static func showing(in fields: [String: Any]) throws(APIError) -> ClosedRange<Int>? {
        struct Shown: Decodable {
            let first: Int
            let last: Int
        }
        guard let shown = try RequestFields.field("showing", Shown.self, in: fields) else { return nil }
        guard shown.first >= 0 else { throw .unprocessable("\"showing.first\" must not be negative (got \(shown.first))") }
        guard shown.first <= shown.last else {
            throw .unprocessable("\"showing.first\" (\(shown.first)) is after \"showing.last\" (\(shown.last))")
        }
        return shown.first...shown.last
    }
}
