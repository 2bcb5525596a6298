@testable import PhotoPipeline

/// Records and operations for the unit tests of the pipeline's parts: no pipeline, no queue, no network.
enum TestRecords {
    /// Record `index`, named and addressed after it.
    static func record(_ index: Int) -> PhotoRecord {
        PhotoRecord(index: index, entry: PhotoEntry(name: "p\(index)", url: "http://127.0.0.1:1/p\(index).jpg"), state: .new)
    }

    /// An operation of `queue` on photo `index`, never enqueued.
    static func operation(_ index: Int, _ queue: QueueKind) -> PhotoOperation {
        PhotoOperation(photoRecord: record(index), queue: queue, claims: LocalWorkClaims())
    }
}
