public import Foundation

/// How a transfer started with `TransferLoop.start(_:limits:resumingFrom:progress:completion:)` ended.
public struct TransferOutcome: Sendable {
    /// The whole body, or why there is none.
    public var result: Result<Data, TransferError>
    /// What to resume from: set when the transfer was cancelled holding bytes of a resource with a
    /// validator (the bytes it was resumed from, if none arrived this time).
    public var resumableData: ResumableData?
    /// Bytes of the body taken from the `ResumableData` it was started with (the origin sent the rest
    /// with 206); 0 when the origin sent the whole body.
    public var resumedBytes: Int
    /// Body bytes this transfer received from the network, whatever its outcome (a body abandoned
    /// to start over included).
    public var fetchedBytes: Int

    /// An outcome; only a cancelled transfer has resumable data.
    public init(
        result: Result<Data, TransferError>, resumableData: ResumableData? = nil, resumedBytes: Int = 0, fetchedBytes: Int = 0
    ) {
        self.result = result
        self.resumableData = resumableData
        self.resumedBytes = resumedBytes
        self.fetchedBytes = fetchedBytes
    }
}
