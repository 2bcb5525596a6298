import Foundation
import PhotoPipeline
import Synchronization

/// The photo list as the web layer sees it: loading, ready with its pipeline, or failed with why.
final class PhotoLibrary: Sendable {
    enum Status: Sendable {
        case loading
        case ready(PhotoPipeline)
        case failed(String)
    }

    private let status = Mutex(Status.loading)

    /// The current status.
    var current: Status { status.withLock { $0 } }

    /// The pipeline once the list is loaded.
    var pipeline: PhotoPipeline? {
        if case .ready(let pipeline) = current { return pipeline }
        return nil
    }

    func finish(with result: Status) {
        status.withLock { $0 = result }
    }

    /// `event: source` / the status part of `GET /api/photos`.
    var source: EventPayloads.Source {
        switch current {
        case .loading: EventPayloads.Source(status: "loading", count: 0)
        case .ready(let pipeline): EventPayloads.Source(status: "ready", count: pipeline.records.count)
        case .failed(let reason): EventPayloads.Source(status: "failed", count: 0, error: reason)
        }
    }

    /// Every row with its current state.
    var photos: [EventPayloads.Photo] {
        pipeline?.records.map { EventPayloads.Photo(index: $0.index, state: $0.state, record: $0) } ?? []
    }
}
