import PhotoPipeline

/// The list's first screen as HTML, made by the server so that it paints, thumbnails and all,
/// before the page's scripts have run (a plain list of images would, and the page should not be
/// slower than one). The list view adopts these rows when it starts (`Public/list.js`); the row
/// markup is the page's `#row-template` filled as `Public/rows.js` fills it, and the thumbnails that
/// are ready are also linked as preloads, which the image loader counts as loaded.
struct FirstScreen {
    /// One row as it stands when the page is made.
    struct Row {
        var index: Int
        var name: String
        var state: PhotoState
    }

    /// Rows taken to be on a first screen: a laptop's 716 px list of 80 px rows shows 9-10. The page
    /// load starts work for the same rows (`AppContext.startFirstScreen`).
    static let rowCount = 10
    /// The list's fixed row height (the template's `rowHeight`).
    static let rowHeight = Defaults.rowHeight

    let rows: [Row]
    /// Photos in the list; nil while the list is still loading (the page then says so).
    let count: Int?
    let basePath: String
    /// Where the page's static files are (`…/static/v/HASH`): a failed row shows `failed.svg` from there.
    let staticBase: String

    init(rows: [Row], count: Int?, basePath: String, staticBase: String) {
        (self.rows, self.count, self.basePath, self.staticBase) = (rows, count, basePath, staticBase)
    }

    /// The first screen of `pipeline`'s list from `row` (1-based, the page's `?row=`), or the top.
    init(pipeline: PhotoPipeline?, row: String?, basePath: String, staticBase: String) {
        (self.basePath, self.staticBase) = (basePath, staticBase)
        guard let pipeline else {
            (rows, count) = ([], nil)
            return
        }
        let records = pipeline.records
        count = records.count
        guard !records.isEmpty else {
            rows = []
            return
        }
        rows = Self.indices(from: row, count: records.count).map { Row(index: $0, name: records[$0].name, state: records[$0].state) }
    }

    /// The first screen's rows of a list of `count` photos: from `row` (1-based, the page's `?row=`), or the top.
    static func indices(from row: String?, count: Int) -> Range<Int> {
        guard count > 0 else { return 0..<0 }
        // Clamped to 1...count before the 1-based row becomes an index: `?row=` is the client's number.
        let asked = row.flatMap { Int($0) } ?? 1
        let first = min(count, max(1, asked)) - 1
        return first..<min(count, first + rowCount)
    }

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
            + rows.map(html(of:)).joined()
            + "</div></div>"
    }

    private func thumbnail(of index: Int) -> String {
        "\(basePath)/photos/\(index)/thumbnail"
    }

    /// A row as `rows.js` renders it.
    private func html(of row: Row) -> String {
        let name = Self.escaped(row.name)
        let status = Self.statusText(row.state)
        var (reason, detail) = ("", "")
        if case .failed(let text, let more) = row.state { (reason, detail) = (text, more.isEmpty ? text : more) }
        let label = Self.escaped(row.name + ", " + status + (reason.isEmpty ? "" : ": " + reason) + Self.action(row.state))
        // The image `images.js` would give the row: a failed row's is there at once too, so every
        // row of the first screen paints without waiting for the scripts.
        let image: String
        switch row.state {
        case .filtered:
            image = #"<img class="thumb" data-role="thumb" alt="Sepia thumbnail of \#(name)" decoding="async" draggable="false" src="\#(thumbnail(of: row.index))">"#
        case .failed:
            image = #"<img class="thumb" data-role="thumb" alt="\#(name) failed to load" decoding="async" draggable="false" src="\#(staticBase)/failed.svg">"#
        default:
            image = #"<img class="thumb" data-role="thumb" alt="" decoding="async" draggable="false">"#
        }
        // The technical detail behind a failed row's reason, on hover (as `rows.js` sets it).
        let title = detail.isEmpty ? "" : " title=\"\(Self.escaped(detail))\""
        return #"<div class="row" role="option" aria-selected="false" data-index="\#(row.index)" id="row-\#(row.index)" aria-posinset="\#(row.index + 1)" aria-setsize="\#(count ?? 0)" style="transform: translateY(\#(row.index * Self.rowHeight)px)" data-state="\#(row.state.name)" aria-label="\#(label)">"#
            + #"<div class="thumb-box">\#(image)<span class="spinner" aria-hidden="true"></span><span class="progress" data-role="progress" aria-hidden="true"><span class="bar" data-role="bar"></span></span></div>"#
            + #"<div class="meta"><span class="name" data-role="name">\#(name)</span><span class="status" data-role="status">\#(Self.escaped(status))</span><span class="reason" data-role="reason"\#(title)>\#(Self.escaped(reason))</span><span class="retry" data-action="retry" data-role="retry" aria-hidden="true"\#(reason.isEmpty ? " hidden" : "")>Try again</span></div>"#
            + #"<span class="num" data-role="num" aria-hidden="true">#\#(row.index + 1)</span></div>"#
    }

    /// What a row says about its photo (`statusText` in `rows.js`).
    static func statusText(_ state: PhotoState) -> String {
        switch state {
        case .new: "Waiting"
        case .downloading(let progress?): "Downloading… \(Int((progress * 100).rounded()))%"
        case .downloading: "Downloading…"
        case .downloaded: "Downloaded · sepia next"
        case .filtering: "Applying sepia…"
        case .filtered: "Sepia · click to compare"
        case .failed: "Failed to load"
        }
    }

    private static func action(_ state: PhotoState) -> String {
        switch state {
        case .filtered: ". Enter opens it"
        case .failed: ". Enter tries again"
        default: ""
        }
    }

    /// Text made safe for HTML content and attribute values.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
