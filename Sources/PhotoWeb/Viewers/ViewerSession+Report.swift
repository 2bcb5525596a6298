import PhotoPipeline

extension ViewerSession {
    /// What a viewer's reaction to its report touches beyond itself: the presentations it may lead or
    /// follow, the first screens' sizes learned from stops, and the server's strategy for a viewer that
    /// chose none.
    struct ReportSurroundings {
        let presentations: Presentations
        let firstScreens: FirstScreenSizes
        let defaultStrategy: SchedulingStrategy
    }

    /// Takes `report` (checked against the list already): its strategy is recorded at once, and the
    /// reports are carried out one at a time, coalesced to the latest (`LatestReport`).
    func receive(_ report: ViewportReport, on pipeline: PhotoPipeline, _ surroundings: ReportSurroundings) {
        // Recorded at once: a strategy chosen by a report that a later one supersedes still holds.
        choose(report.strategy)
        guard reports.offer(report) else { return }
        while let latest = reports.take() {
            apply(latest, on: pipeline, surroundings)
        }
    }

    /// Carries out a report: the viewer's rows of interest follow it, and its controller is told.
    private func apply(_ report: ViewportReport, on pipeline: PhotoPipeline, _ surroundings: ReportSurroundings) {
        let presentations = surroundings.presentations
        // A follower that reports a viewport of its own scrolled away: it drives its own rows now.
        if !report.hidden, let news = presentations.breakAway(id) {
            news.deliver(on: pipeline)
        }
        defer {
            // A presenter's followers move with it, in the scroll (its rows, or what a person's scroll
            // shows) as at its stops.
            if !report.hidden, let news = presentations.moved(id, to: report.rows ?? report.showing, scrolling: report.scrolling) {
                news.deliver(on: pipeline)
            }
        }
        if report.hidden {
            // Nobody sees the tab: its work goes as the tutorial's offscreen rows' does, and its
            // next report with rows (shown again) starts it where it was.
            let queues = hide(default: surroundings.defaultStrategy)
            outbox.enqueue(.init(name: .queues, data: EventPayloads.json(queues)))
            return
        }
        if let rows = report.rows {
            // Rows coming into the viewer's interest missed updates while outside it (or were never
            // in its snapshot): their state now, with their names.
            ViewerSession.moveInterest(of: [self], to: rows, margin: ViewerSession.interestMargin, on: pipeline)
        }
        withController(on: pipeline, strategy: surroundings.defaultStrategy) { controller in
            switch (report.scrolling, report.rows) {
            case (true, let rows?): controller.scrolled(to: rows)
            case (true, nil): controller.scrollBegan()
            case (false, let rows?):
                surroundings.firstScreens.remember(rows.count, for: client)
                channel.stops?.viewerStopped(on: rows, in: pipeline)
                controller.loadImagesForOnscreenRows(rows)
            case (false, nil): break  // only what a reader's untold step shows (`showing`): no work
            }
        }
        // The page's queue figures and suspended badge follow the report now, not at the next tick.
        if let queues = queuesIfChanged() {
            outbox.enqueue(.init(name: .queues, data: EventPayloads.json(queues)))
        }
    }
}
