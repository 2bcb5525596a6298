import PhotoPipeline

/// What a row says about its photo, written once: the server's first screen uses it, the page gets
/// the same table with its row template (`data-words`, read by `Public/rows.js`), and the lab page
/// with its body (read by `Public/lab/rows.js`).
enum RowWords {
    /// The status line of each state (`downloading` gets its percent after it when known).
    static let status = [
        "new": "Waiting",
        "downloading": "Downloading…",
        "downloaded": "Downloaded · sepia next",
        "filtering": "Applying sepia…",
        "filtered": "Sepia · click to compare",
        "failed": "Failed to load",
    ]
    /// What Enter (or a click) on a row does, appended to its accessible name.
    static let actions = ["filtered": ". Enter opens it", "failed": ". Enter tries again"]
    /// The page's own state: a row not settled while the server has gone.
    static let offline = "Waiting for the server"
    /// A row whose sepia is ready while its thumbnail is not on screen yet (the placeholder or the
    /// unfiltered preview shows): it does not offer to compare what it does not show.
    static let showing = "Sepia · loading…"
    /// A lab lane's row whose sepia shows: the lab offers no comparison.
    static let lane = "Sepia"

    /// The status line of a row in `state`.
    static func status(of state: PhotoRecordState) -> String {
        let words = status[state.name] ?? state.name
        if case .downloading(let progress?) = state { return words + " \(Int((progress * 100).rounded()))%" }
        return words
    }

    /// The table as the pages read it: `{"status": {...}, "actions": {...}, "offline": "...", "showing": "...", "lane": "..."}`.
    static var json: String {
        struct Table: Encodable {
            let status: [String: String]
            let actions: [String: String]
            let offline: String
            let showing: String
            let lane: String
        }
        let table = Table(status: status, actions: actions, offline: offline, showing: showing, lane: lane)
        return String(decoding: EventPayloads.json(table), as: UTF8.self)
    }
}
