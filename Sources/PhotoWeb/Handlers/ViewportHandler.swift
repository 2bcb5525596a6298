import Foundation
import Hummingbird
import PhotoPipeline

/// `POST /api/viewport`: `{"viewer": ID, "scrolling": true|false, "first": N, "last": M}`.
///
/// Scrolling suspends the viewer's queued work (the tutorial's `scrollViewWillBeginDragging`), except
/// a reader's slow scroll reported with its rows, which keeps loading them and what lies ahead;
/// a report with scrolling false runs `loadImagesForOnscreenRows` for rows first...last; `"hidden":
/// true` (the tab cannot be seen) gives up the viewer's work until its next report with rows.
///
/// A report's work is bounded whatever the list: at most `maxVisibleRows` rows on screen (`422`
/// past it), and a viewer's reports are handled one at a time, coalesced to the latest
/// (`LatestReport`): one superseded before it is handled is answered `204` and dropped.
struct ViewportHandler: Sendable {
    let context: AppContext

    /// Rows a report may say are on screen: far more than any screen holds (80 px rows: 2,160 px
    /// of screen at 25 % zoom is 108), and a bound on what one report can make the server do.
    static let maxVisibleRows = 200

    /// A parsed, validated report.
    struct Report: Equatable, Sendable {
        var viewer: String
        var scrolling: Bool
        var rows: ClosedRange<Int>?
        /// The tab's own strategy, when it asks for one.
        var strategy: SchedulingStrategy? = nil
        /// The tab is hidden: no rows of it are on screen.
        var hidden = false
    }

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let report = try Self.parse(try await request.body(limit: context.configuration.maxRequestBodyBytes))
        let session = try context.session(report.viewer)
        let pipeline = try session.channel.loadedPipeline()
        if let rows = report.rows, rows.upperBound >= pipeline.entries.count {
            throw APIError.unprocessable("rows \(rows.lowerBound)...\(rows.upperBound) are past the end of the list (\(pipeline.entries.count) photos, last row \(pipeline.entries.count - 1))")
        }
        // Counted only now: the rows are within the list, so the count cannot overflow.
        if let rows = report.rows, rows.count > Self.maxVisibleRows {
            throw APIError.unprocessable("at most \(Self.maxVisibleRows) rows can be on screen at once (got \(rows.count), rows \(rows.lowerBound)...\(rows.upperBound))")
        }
        // Recorded at once: a strategy chosen by a report that a later one supersedes still holds.
        session.choose(report.strategy)
        if session.reports.offer(report) {
            while let latest = session.reports.take() {
                apply(latest, of: session, on: pipeline)
            }
        }
        return .empty(.noContent, headers: [.cacheControl: "no-store"])
    }

    /// Carries out a report: the viewer's rows of interest follow it, and its controller is told.
    private func apply(_ report: Report, of session: ViewerSession, on pipeline: PhotoPipeline) {
        // A follower that reports a viewport of its own scrolled away: it drives its own rows now.
        if !report.hidden, let news = context.presentations.breakAway(session.id) {
            news.deliver(on: pipeline)
        }
        defer {
            // A presenter's followers move with it, in the scroll as at its stops.
            if !report.hidden, let news = context.presentations.moved(session.id, to: report.rows, scrolling: report.scrolling) {
                news.deliver(on: pipeline)
            }
        }
        if report.hidden {
            // Nobody sees the tab: its work goes as the tutorial's offscreen rows' does, and its
            // next report with rows (shown again) starts it where it was.
            let queues = session.hide(default: context.configuration.strategy)
            session.outbox.enqueue(.init(name: .queues, data: EventPayloads.json(queues)))
            return
        }
        if let rows = report.rows {
            // Rows coming into the viewer's interest missed updates while outside it (or were never
            // in its snapshot): their state now, with their names.
            ViewerSession.moveInterest(of: [session], to: rows, margin: ViewerSession.interestMargin, on: pipeline)
        }
        session.withController(on: pipeline, strategy: context.configuration.strategy) { controller in
            switch (report.scrolling, report.rows) {
            case (true, let rows?): controller.scrolled(to: rows)
            case (true, nil): controller.scrollBegan()
            case (false, let rows?):
                context.firstScreens.remember(rows.count, for: session.client)
                session.channel.stops?.viewerStopped(on: rows, in: pipeline)
                controller.loadImagesForOnscreenRows(rows)
            case (false, nil): break  // refused by parse
            }
        }
        // The page's queue figures and suspended badge follow the report now, not at the next tick.
        if let queues = session.queuesIfChanged() {
            session.outbox.enqueue(.init(name: .queues, data: EventPayloads.json(queues)))
        }
    }

    /// Parses the body, saying exactly what is wrong with a bad one.
    static func parse(_ data: Data) throws(APIError) -> Report {
        guard !data.isEmpty else { throw .badRequest("empty body: expected JSON {\"viewer\", \"scrolling\", \"first\", \"last\"}") }
        guard let object = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) else {
            throw .badRequest("body is not valid JSON")
        }
        guard let fields = object as? [String: Any] else { throw .badRequest("body is not a JSON object") }
        guard let viewer = try RequestFields.field("viewer", String.self, in: fields), !viewer.isEmpty else {
            throw .badRequest("\"viewer\" must be a non-empty string")
        }
        if try RequestFields.field("hidden", Bool.self, in: fields) == true {
            return Report(viewer: viewer, scrolling: false, rows: nil, strategy: try RequestFields.strategy(in: fields), hidden: true)
        }
        guard let scrolling = try RequestFields.field("scrolling", Bool.self, in: fields) else {
            throw .badRequest("\"scrolling\" must be true or false")
        }
        let strategy = try RequestFields.strategy(in: fields)
        switch (try RequestFields.field("first", Int.self, in: fields), try RequestFields.field("last", Int.self, in: fields)) {
        case (nil, nil):
            guard scrolling else { throw .badRequest("\"first\" and \"last\" are required when not scrolling") }
            return Report(viewer: viewer, scrolling: true, rows: nil, strategy: strategy)
        case (let first?, let last?):
            guard first >= 0 else { throw .unprocessable("\"first\" must not be negative (got \(first))") }
            guard first <= last else { throw .unprocessable("\"first\" (\(first)) is after \"last\" (\(last))") }
            return Report(viewer: viewer, scrolling: scrolling, rows: first...last, strategy: strategy)
        default:
            throw .badRequest("\"first\" and \"last\" go together")
        }
    }
}
