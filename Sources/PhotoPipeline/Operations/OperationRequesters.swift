/// Which viewers each operation worked for: every viewer that wanted its photo at any moment between
/// the operation being made and its end. Operation events carry the set, so each viewer is told which
/// bars of the shared timeline were its own work, even for an operation cancelled because that viewer
/// scrolled away (by then it no longer wants the photo).
///
/// A value type kept behind the pipeline's lock, beside `PendingOperations`.
struct OperationRequesters {
    private var viewers: [ObjectIdentifier: Set<ViewerID>] = [:]

    /// Records that `viewers` want the photo `operation` works on.
    mutating func add(_ viewers: Set<ViewerID>, to operation: PhotoOperation) {
        guard !viewers.isEmpty else { return }
        self.viewers[ObjectIdentifier(operation), default: []].formUnion(viewers)
    }

    /// The viewers `operation` has worked for so far.
    func viewers(of operation: PhotoOperation) -> Set<ViewerID> {
        viewers[ObjectIdentifier(operation)] ?? []
    }

    /// The viewers `operation` worked for, forgotten: it ended.
    mutating func take(_ operation: PhotoOperation) -> Set<ViewerID> {
        viewers.removeValue(forKey: ObjectIdentifier(operation)) ?? []
    }

    /// Forgets `viewer` everywhere: it left, and no operation works for it any more.
    mutating func remove(_ viewer: ViewerID) {
        for operation in Array(viewers.keys) {
            viewers[operation]?.remove(viewer)
        }
    }

    /// Operations still recorded (for tests: none once all have ended).
    var count: Int { viewers.count }
}
