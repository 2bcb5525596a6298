import PhotoPipeline

/// Told of a channel's scroll stops and of its rows done: a lab lane times its stops so.
protocol ScrollStopWatching: Sendable {
    /// A viewer stopped on `rows` of `pipeline`, before they are loaded.
    func viewerStopped(on rows: ClosedRange<Int>, in pipeline: PhotoPipeline)
    /// Row `index` of `pipeline` became sepia or failed.
    func rowFinished(_ index: Int, in pipeline: PhotoPipeline)
}
