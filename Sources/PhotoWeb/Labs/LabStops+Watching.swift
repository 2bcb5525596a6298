import PhotoPipeline

extension LabStops: ScrollStopWatching {
    /// A stop is timed from the report: it is done at once when its rows are.
    func viewerStopped(on rows: ClosedRange<Int>, in pipeline: PhotoPipeline) {
        stopped(on: rows, done: Self.allDone(rows, in: pipeline))
        // A row that finished between the check and the stop being kept sent its event too early.
        if waiting == rows, Self.allDone(rows, in: pipeline) { completed(rows) }
    }

    /// The waiting stop ends with the last of its rows done.
    func rowFinished(_ index: Int, in pipeline: PhotoPipeline) {
        if let rows = waiting, rows.contains(index), Self.allDone(rows, in: pipeline) { completed(rows) }
    }

    /// Whether every row of `rows` is sepia or failed.
    private static func allDone(_ rows: ClosedRange<Int>, in pipeline: PhotoPipeline) -> Bool {
        pipeline.records(in: rows).allSatisfy { $0.state.isFinal }
    }
}
