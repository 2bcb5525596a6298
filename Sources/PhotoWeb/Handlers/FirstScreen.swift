import Mustache
import PhotoPipeline

/// The list's first screen as HTML, made by the server so that it paints, thumbnails and all,
/// before the page's scripts have run (a plain list of images would, and the page should not be
/// slower than one). The list view adopts these rows when it starts (`Public/list.js`); a row is
/// `Templates/row.mustache`, the partial the page's `#row-template` is made of, filled as
/// `Public/rows.js` fills it, and the thumbnails that are ready are also linked as preloads, which
/// the image loader counts as loaded.
struct FirstScreen {
    /// One row as it stands when the page is made.
    struct Row {
        var index: Int
        var name: String
        var state: PhotoRecordState
    }

    /// Rows drawn in the page's HTML: a laptop's 716 px list of 80 px rows shows 9-10 at most (drawing
    /// costs little; work is sized apart, `surelyShownRows`).
    static let rowCount = 10
    /// Rows the page load starts work for when the client's window is not known yet: what common
    /// windows show at least partly at the top, under the introduction (a 1366x768 laptop 6,
    /// 1366x800 7, a 390x844 phone 8). Past a smaller window's screen they are rows the prefetch
    /// strategy asks for anyway (three past the screen). Its first report starts the rest; a known
    /// window's rows come from `FirstScreenSizes`.
    static let surelyShownRows = 8
    /// The most rows a page load starts work for, however tall the client's window was.
    static let mostStartedRows = 30
    /// The list's fixed row height (the template's `rowHeight`).
    static let rowHeight = Defaults.rowHeight

    let rows: [Row]
    /// The templates: a row is `row.mustache`.
    let templates: MustacheLibrary
    /// Photos in the list; nil while the list is still loading (the page then says so).
    let count: Int?
    let basePath: String
    /// Where the page's static files are (`…/static/v/HASH`): a failed row shows `failed.svg` from there.
    let staticBase: String

    init(rows: [Row], count: Int?, templates: MustacheLibrary, basePath: String, staticBase: String) {
        (self.rows, self.count, self.templates, self.basePath, self.staticBase) = (rows, count, templates, basePath, staticBase)
    }

    /// The first screen of `pipeline`'s list from `row` (1-based, the page's `?row=`), or the top.
    init(pipeline: PhotoPipeline?, row: String?, templates: MustacheLibrary, basePath: String, staticBase: String) {
        (self.templates, self.basePath, self.staticBase) = (templates, basePath, staticBase)
        guard let pipeline else {
            (rows, count) = ([], nil)
            return
        }
        count = pipeline.entries.count
        let indices = Self.indices(from: row, count: pipeline.entries.count)
        guard let first = indices.first, let last = indices.last else {
            rows = []
            return
        }
        // One read of the pipeline: the screen's rows as they all were at one moment.
        rows = pipeline.records(in: first...last).map { Row(index: $0.index, name: $0.name, state: $0.state) }
    }

    /// The first screen's rows of a list of `count` photos: from `row` (1-based, the page's `?row=`), or the top.
    static func indices(from row: String?, count: Int, rows: Int = rowCount) -> Range<Int> {
        guard count > 0 else { return 0..<0 }
        // Clamped to 1...count before the 1-based row becomes an index: `?row=` is the client's number.
        let asked = row.flatMap { Int($0) } ?? 1
        let first = min(count, max(1, asked)) - 1
        return first..<min(count, first + max(1, rows))
    }

    /// What the page puts in: the preloads, then the list.
    struct Filling: Sendable {
        let preloads: String
        let list: String
        /// The two compressed once, with the screen, for a gzipped page (`PageTemplate.gzippedBody`);
        /// nil if compressing failed (the route compresses such a page itself).
        let deflated: [DeflatedPart]?

        init(preloads: String, list: String) {
            (self.preloads, self.list) = (preloads, list)
            deflated = try? [DeflatedPart(preloads), DeflatedPart(list)]
        }
    }

    /// The page's parts made from this screen.
    var filling: Filling { Filling(preloads: preloads, list: listHTML) }

    /// `<link rel=preload>` for the sepia thumbnails that are ready: fetched while the page's modules load.
    var preloads: String {
        rows.filter { $0.state == .filtered }
            .map { #"<link rel="preload" as="image" fetchpriority="high" href="\#(thumbnail(of: $0.index))">"# + "\n" }
            .joined()
    }

    /// The list box: its loading message (hidden once there is a list) and the list with its first rows.
    var listHTML: String {
        let loaded = count != nil
        let message = loaded && count == 0 ? "The photo list is empty." : "Loading photo list…"
        let height = (count ?? 0) * Self.rowHeight
        return #"<div id="list-message" class="list-message" role="status"\#(loaded && count != 0 ? " hidden" : "")>\#(message)</div>"#
            + #"<div id="list" class="list" tabindex="0" role="listbox" aria-label="Photos" aria-describedby="list-help" aria-busy="\#(loaded ? "false" : "true")">"#
            + #"<div id="rows" class="rows" role="none"\#(loaded ? #" style="height: \#(height)px""# : "")>"#
            + rows.map { templates.render(values(of: $0), withTemplate: "row") ?? "" }.joined()
            + "</div></div>"
    }

    /// The progress bar's fill, 0...1 (`--p`, as `rows.js` sets it): 0 unless a download's is known.
    private static func progress(of state: PhotoRecordState) -> String {
        guard case .downloading(let progress?) = state else { return "0" }
        return "\(progress)"
    }

    private func thumbnail(of index: Int) -> String {
        "\(basePath)/photos/\(index)/thumbnail"
    }

    /// A row's values for `Templates/row.mustache`, the partial the page's `#row-template` is made
    /// of too: filled as `Public/rows.js` fills it.
    func values(of row: Row) -> [String: Any] {
        let status = RowWords.status(of: row.state)
        var values: [String: Any] = [
            "name": row.name, "status": status, "failed": false,
            "row": [
                "index": row.index, "position": row.index + 1, "count": count ?? 0, "top": row.index * Self.rowHeight,
                "state": row.state.name, "progress": Self.progress(of: row.state),
                "indeterminate": row.state == .downloading(progress: nil),
            ] as [String: Any],
        ]
        var reason = ""
        // The image `images.js` would give the row: a failed row's is there at once too, so every
        // row of the first screen paints without waiting for the scripts.
        switch row.state {
        case .filtered:
            values["src"] = thumbnail(of: row.index)
            values["alt"] = "Sepia thumbnail of \(row.name)"
        case .failed(let text, let detail):
            reason = text
            values["reason"] = text
            // The technical detail behind a failed row's reason, on hover (as `rows.js` sets it).
            let shown = detail.isEmpty ? text : detail
            if !shown.isEmpty { values["detail"] = shown }
            values["failed"] = true
            values["src"] = "\(staticBase)/failed.svg"
            values["alt"] = "\(row.name) failed to load"
        default:
            values["alt"] = ""
        }
        var label = row.name + ", " + status + (reason.isEmpty ? "" : ": " + reason)
        label += RowWords.actions[row.state.name] ?? ""
        var rowValues = values["row"] as? [String: Any] ?? [:]
        rowValues["label"] = label
        values["row"] = rowValues
        return values
    }
}
