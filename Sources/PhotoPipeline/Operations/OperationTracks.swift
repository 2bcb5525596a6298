import HTTPTransfer

/// The timeline tracks of one queue: which running operation occupies which track (0 ..< the queue's
/// width), and how far a running download has got. The only record of what is running.
///
/// A value type with no lock of its own: `PendingOperations` keeps it, behind the pipeline's one lock.
struct OperationTracks {
    /// One running operation.
    struct Occupant {
        var operation: ObjectIdentifier
        var index: Int
        /// A download's latest progress report; nil until the first, and for filtrations.
        var progress: TransferProgress?
    }

    private var occupants: [Int: Occupant] = [:]

    /// Puts `operation` (working on photo `index`) in the lowest free track and returns the track.
    mutating func enter(_ operation: PhotoOperation) -> Int {
        var track = 0
        while occupants[track] != nil { track += 1 }
        occupants[track] = Occupant(operation: ObjectIdentifier(operation), index: operation.index)
        return track
    }

    /// Frees `operation`'s track and returns it; nil when it never entered one.
    mutating func leave(_ operation: PhotoOperation) -> Int? {
        guard let track = track(of: operation) else { return nil }
        occupants[track] = nil
        return track
    }

    /// Records a running download's latest progress; returns the report before it.
    mutating func record(_ progress: TransferProgress, of operation: PhotoOperation) -> TransferProgress? {
        guard let track = track(of: operation) else { return nil }
        defer { occupants[track]?.progress = progress }
        return occupants[track]?.progress
    }

    /// A running download's latest progress report.
    func progress(of operation: PhotoOperation) -> TransferProgress? {
        track(of: operation).flatMap { occupants[$0]?.progress }
    }

    /// The running operation working on photo `index`, if there is one.
    func occupant(workingOn index: Int) -> Occupant? {
        occupants.values.first { $0.index == index }
    }

    /// Whether `operation` is running.
    func isRunning(_ operation: PhotoOperation) -> Bool {
        track(of: operation) != nil
    }

    /// Operations running now.
    var count: Int { occupants.count }

    private func track(of operation: PhotoOperation) -> Int? {
        let id = ObjectIdentifier(operation)
        return occupants.first { $0.value.operation == id }?.key
    }
}
