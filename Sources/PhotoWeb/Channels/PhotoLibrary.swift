import Foundation
import PhotoPipeline
import Locking

/// The photo list as the web layer sees it: loading, ready with its pipeline, or failed with why.
final class PhotoLibrary: Sendable {
    enum Status: Sendable {
        case loading
        case ready(PhotoPipeline)
        case failed(String)
    }

    private let status = Locked((Status.loading, skipped: [SkippedPhoto]()))

    /// The current status.
    var current: Status { status.withLock { $0.0 } }

    /// The pipeline once the list is loaded.
    var pipeline: PhotoPipeline? {
        if case .ready(let pipeline) = current { return pipeline }
        return nil
    }

    func finish(with result: Status, skipped: [SkippedPhoto] = []) {
        status.withLock { $0 = (result, skipped) }
    }

    /// `event: source` / the status part of `GET /api/photos`.
    var source: EventPayloads.Source {
        let (current, skipped) = status.withLock { $0 }
        return switch current {
        case .loading: EventPayloads.Source(status: "loading", count: 0)
        case .ready(let pipeline):
            EventPayloads.Source(status: "ready", count: pipeline.entries.count, skipped: skipped.isEmpty ? nil : skipped)
        case .failed(let reason): EventPayloads.Source(status: "failed", count: 0, error: reason)
        }
    }

    /// The rows in `page` (clamped to the list) with their states, all read at one moment.
    func photos(in page: Range<Int>) -> [EventPayloads.Photo] {
        guard let pipeline, !page.isEmpty else { return [] }
        return pipeline.records(in: page.lowerBound...(page.upperBound - 1)).map {
            EventPayloads.Photo(index: $0.index, state: $0.state, record: $0)
        }
    }
}
