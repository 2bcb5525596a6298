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
/// A stop that wants its rows' thumbnails says so in the query (`?thumbnails=A-B[&previews=1]`, rows
/// A...B among the report's): the report is taken first, then the answer brings those thumbnails
/// as they are made (`StopThumbnails`), so a stop is one request and nothing races its report.
///
/// The handler only translates HTTP: it parses and checks the report and hands it to the viewer's
/// session (`ViewerSession.receive`), which owns the viewer's reaction to it.
///
/// A report's work is bounded whatever the list: at most `maxVisibleRows` rows on screen (`422`
/// past it), and a viewer's reports are handled one at a time, coalesced to the latest
/// (`LatestReport`): one superseded before it is handled is answered `204` and dropped. A report's
/// answer waits for its viewer's pace (`ReportPace`: at most one answer a pace on a connection), so
/// a client that reports as fast as it is answered costs the server a bounded rate of reports.
struct ViewportHandler: Sendable {
    let context: AppContext

    /// Rows a report may say are on screen: far more than any screen holds (80 px rows: 2,160 px
    /// of screen at 25 % zoom is 108), and a bound on what one report can make the server do.
    static let maxVisibleRows = 200

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let ask = try StopThumbnails.Ask(request)
        let body = try await request.body(limit: context.configuration.maxRequestBodyBytes)
        guard let ask else {
            // Held until its viewer's pace has passed (`ReportPace`); what it does was done already.
            if let taken = try take(body), taken.answerAt > .now {
                try? await Task.sleep(until: taken.answerAt, clock: .continuous)
            }
            return Self.accepted
        }
        // (Never nil: only the event loop, which cannot hold an answer, is declined a report.)
        guard let taken = try take(body, asking: ask.rows) else { return Self.accepted }
        return StopThumbnails(pipeline: taken.pipeline, rows: ask.rows, previews: ask.previews, wait: context.configuration.thumbnailWait)
            .response()
    }

    /// The answer to a report taken.
    static var accepted: Response { .empty(.noContent, headers: [.cacheControl: "no-store"]) }

    /// A report taken: the pipeline it was taken on, and when its answer may go.
    struct Taken {
        let pipeline: PhotoPipeline
        let answerAt: ContinuousClock.Instant
    }

    /// Checks the report in `body` (with `thumbnails`, a stop whose rows hold them) and hands it to
    /// its viewer's session, returning the pipeline it was taken on and when its answer goes (its
    /// viewer's pace, `ReportPace`; a stop's thumbnails are its answer and never wait), or throws
    /// what to answer instead, having changed nothing. `holding` false (the event loop, which answers
    /// only at once): nil for a report whose answer would wait, having changed nothing. `now`: when it
    /// arrived. Synchronous and short: the event loop calls it too (`Routes.ready`).
    @discardableResult
    func take(
        _ body: Data, asking thumbnails: ClosedRange<Int>? = nil, holding: Bool = true, at now: ContinuousClock.Instant = .now
    ) throws(APIError) -> Taken? {
        let report = try Self.parse(body)
        if let thumbnails {
            guard !report.scrolling, let rows = report.rows, rows.contains(thumbnails.lowerBound), rows.contains(thumbnails.upperBound) else {
                throw .unprocessable("thumbnails \(thumbnails.lowerBound)-\(thumbnails.upperBound) are asked for by a stop (scrolling false) among its rows \"first\"...\"last\"")
            }
        }
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
        guard let answerAt = thumbnails == nil ? session.pace.answer(at: now, holding: holding) : now else { return nil }
        // A lab follower's watcher is refused; a presented lab's driver has its place told to its followers.
        try context.labs.presentations.reported(report, by: session)
        session.receive(report, on: pipeline, .init(
            presentations: context.presentations, firstScreens: context.firstScreens, defaultStrategy: context.configuration.strategy))
        return Taken(pipeline: pipeline, answerAt: answerAt)
    }

    /// Parses the body, saying exactly what is wrong with a bad one.
    static func parse(_ data: Data) throws(APIError) -> ViewportReport {
        guard !data.isEmpty else { throw .badRequest("empty body: expected JSON {\"viewer\", \"scrolling\", \"first\", \"last\"}") }
        let body = try Body.decoded(from: data)
        guard let viewer = body.viewer, !viewer.isEmpty else {
            throw .badRequest("\"viewer\" must be a non-empty string")
        }
        if body.hidden == true {
            return ViewportReport(viewer: viewer, scrolling: false, rows: nil, strategy: try body.chosenStrategy(), hidden: true)
        }
        guard let scrolling = body.scrolling else {
            throw .badRequest("\"scrolling\" must be true or false")
        }
        let strategy = try body.chosenStrategy()
        switch (body.first, body.last) {
        case (nil, nil):
            let showing = try body.showingRows()
            guard scrolling || showing != nil else { throw .badRequest("\"first\" and \"last\" are required when not scrolling") }
            return ViewportReport(viewer: viewer, scrolling: scrolling, rows: nil, strategy: strategy, showing: showing)
        case (let first?, let last?):
            guard body.showing == nil else {
                throw .badRequest("\"showing\" is for a scroll that sends no rows: leave out \"first\" and \"last\" with it")
            }
            guard first >= 0 else { throw .unprocessable("\"first\" must not be negative (got \(first))") }
            guard first <= last else { throw .unprocessable("\"first\" (\(first)) is after \"last\" (\(last))") }
            return ViewportReport(viewer: viewer, scrolling: scrolling, rows: first...last, strategy: strategy)
        default:
            throw .badRequest("\"first\" and \"last\" go together")
        }
    }

    /// A report's body, decoded in one pass (under a crowd, a field-by-field read was 4% of the
    /// server's CPU); as strict as `RequestFields`: 1.5 or true is not a row number, and a field of the
    /// wrong type is named in the 400.
    struct Body: Decodable, Equatable {
        struct Shown: Decodable, Equatable {
            let first: Int
            let last: Int
        }

        var viewer: String?
        var scrolling: Bool?
        var hidden: Bool?
        var first: Int?
        var last: Int?
        var strategy: String?
        var prefetch: Int?
        var showing: Shown?

        /// The body, in one pass; a body that does not decode is read field by field for the exact reason.
        static func decoded(from data: Data) throws(APIError) -> Body {
            if let body = scanned(data) ?? (try? JSONDecoder().decode(Body.self, from: data)) { return body }
            guard let object = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) else {
                throw .badRequest("body is not valid JSON")
            }
            guard let fields = object as? [String: Any] else { throw .badRequest("body is not a JSON object") }
            return try Body(fields: fields)
        }

        /// No field given.
        init() {}

        /// `fields` read one by one (`RequestFields.field`), each of the wrong type named in the 400.
        init(fields: [String: Any]) throws(APIError) {
            viewer = try RequestFields.field("viewer", String.self, in: fields)
            scrolling = try RequestFields.field("scrolling", Bool.self, in: fields)
            hidden = try RequestFields.field("hidden", Bool.self, in: fields)
            first = try RequestFields.field("first", Int.self, in: fields)
            last = try RequestFields.field("last", Int.self, in: fields)
            strategy = try RequestFields.field("strategy", String.self, in: fields)
            prefetch = try RequestFields.field("prefetch", Int.self, in: fields)
            showing = try RequestFields.field("showing", Shown.self, in: fields)
        }

        func chosenStrategy() throws(APIError) -> SchedulingStrategy? {
            try RequestFields.strategy(named: strategy, prefetch: prefetch)
        }

        /// The optional `"showing": {"first", "last"}` of a scroll reported without rows.
        func showingRows() throws(APIError) -> ClosedRange<Int>? {
            guard let shown = showing else { return nil }
            guard shown.first >= 0 else { throw .unprocessable("\"showing.first\" must not be negative (got \(shown.first))") }
            guard shown.first <= shown.last else {
                throw .unprocessable("\"showing.first\" (\(shown.first)) is after \"showing.last\" (\(shown.last))")
            }
            return shown.first...shown.last
        }
    }
}
