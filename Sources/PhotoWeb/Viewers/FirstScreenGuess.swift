import PhotoPipeline

/// A page's first screen, started when the page is made rather than when it first reports: the
/// report waits for the page's scripts, its event stream and its first layout (a few hundred ms),
/// and the rows at the top (or at the page's `?row=`) are nearly always the ones it will show.
/// Its first report then replaces the guess with what is really on screen (rows the guess got
/// wrong are given up, at most a few started transfers); the guess is the rows the client's window
/// showed before (`FirstScreenSizes`), or the fewest any window shows.
extension AppContext {
    /// Starts the rows `session`'s page will show first (`FirstScreen.indices`: from `row`, 1-based,
    /// the page's `?row=`, or the top), as many as its client's window showed at its last stop
    /// (`firstScreens`), or the rows every window shows when that is not known. Nothing for the eager
    /// strategy (it wants everything anyway) or a list not loaded yet.
    func startFirstScreen(of session: ViewerSession, row: String?) {
        guard let pipeline = library.pipeline, !pipeline.entries.isEmpty else { return }
        let rows = min(FirstScreen.mostStartedRows, firstScreens.rows(for: session.client) ?? FirstScreen.surelyShownRows)
        let indices = FirstScreen.indices(from: row, count: pipeline.entries.count, rows: rows)
        if let first = indices.first, let last = indices.last {
            // Its snapshot covers the rows around this screen, the ones the page shows first.
            _ = session.follow(first...last, rowCount: pipeline.entries.count)
        }
        guard let first = indices.first, let last = indices.last else { return }
        session.withController(on: pipeline, strategy: configuration.strategy) { controller in
            guard controller.strategy != .eager else { return }
            for record in pipeline.records(in: first...last) {
                controller.startOperations(for: record)
            }
        }
    }
}
