import Foundation

/// What a locked section decided to do once the lock is released: files to write, scheduling
/// decisions the queues must hear, operations to link, enqueue and cancel, and events, stamped in
/// the order the changes happened.
///
/// It also finds the state changes to announce: a section `watch`es a photo before changing what it
/// depends on, passes on what the store reports evicted, and `publishStateChanges` stamps a `photo`
/// event for each photo whose derived state is not what it was.
struct Effects: Sendable {
    private let transport: EventPublisher

    /// Files to write to the results store, with their names there.
    private(set) var writes: [(data: Data, name: String)] = []
    /// Operations whose priority or gate changed.
    private(set) var decided: [PhotoOperation] = []
    /// New filtrations and the downloads they wait for.
    private(set) var dependencies: [(filtration: ImageFiltration, download: ImageDownloader)] = []
    /// New operations and their queues.
    private(set) var enqueued: [(operation: PhotoOperation, queue: OperationQueue)] = []
    /// Operations to cancel.
    private(set) var cancelled: [PhotoOperation] = []
    /// Events, stamped in order.
    private(set) var events: [PipelineEvent] = []
    /// Whether what runs or who wants what changed, so download permits must be granted again.
    private(set) var permitsMayHaveChanged = false
    /// Calls to make last (to the claims of other instances).
    private(set) var calls: [@Sendable () -> Void] = []
    /// The state changes published, for the census (`update` applies them before the lock is released).
    private(set) var moves: [(before: PhotoRecordState, now: PhotoRecordState)] = []

    /// Photos watched, with their state when first watched, in the order they were.
    private var watched: [(index: Int, before: PhotoRecordState)] = []
    /// Photos whose held images the store changed, with their resting state before.
    private var restingBefore: [Int: PhotoRecordState] = [:]

    init(transport: EventPublisher) {
        self.transport = transport
    }

    mutating func write(_ data: Data, as name: String) {
        writes.append((data, name))
    }

    /// Records that `operation`'s queue must hear the decision it was just given (when it changed one).
    mutating func decided(_ operation: PhotoOperation, changed: Bool) {
        if changed { decided.append(operation) }
    }

    /// Notes that download permits must be granted again before the lock is released.
    mutating func reconsiderPermits() {
        permitsMayHaveChanged = true
    }

    mutating func link(_ filtration: ImageFiltration, after download: ImageDownloader) {
        dependencies.append((filtration, download))
    }

    mutating func enqueue(_ operation: PhotoOperation, on queue: OperationQueue) {
        enqueued.append((operation, queue))
    }

    mutating func cancel(_ operation: PhotoOperation) {
        cancelled.append(operation)
    }

    /// Makes `call` once everything else is carried out.
    mutating func afterwards(_ call: @escaping @Sendable () -> Void) {
        calls.append(call)
    }

    /// How many events were stamped so far.
    var eventCount: Int { events.count }

    /// Stamps an event now.
    mutating func publish(_ kind: PipelineEvent.Kind) {
        events.append(transport.stamp(kind))
    }

    // MARK: State changes

    /// Remembers photo `index`'s state before this section changes what it depends on.
    mutating func watch(_ index: Int, in state: PipelineState) {
        guard !watched.contains(where: { $0.index == index }) else { return }
        watched.append((index, state.photoState(of: index)))
    }

    /// Takes note of the photos whose held images the store changed (`before`: their resting states then).
    mutating func storeChanged(_ before: [Int: PhotoRecordState]) {
        restingBefore.merge(before) { first, _ in first }
    }

    /// Stamps a `photo` event for each watched photo whose state changed, then for each other photo
    /// whose resting state the store changed while it was at rest; starts watching afresh.
    mutating func publishStateChanges(in state: PipelineState) {
        for (index, before) in watched {
            let now = state.photoState(of: index)
            if now != before { publishChange(of: index, from: before, to: now) }
        }
        let watchedIndices = Set(watched.map(\.index))
        for (index, before) in restingBefore.sorted(by: { $0.key < $1.key })
        where !watchedIndices.contains(index) && state.isAtRest(index) {
            let now = state.store.restingState(of: index)
            if now != before { publishChange(of: index, from: before, to: now) }
        }
        watched.removeAll()
        restingBefore.removeAll()
    }

    private mutating func publishChange(of index: Int, from before: PhotoRecordState, to now: PhotoRecordState) {
        publish(.photo(index: index, state: now))
        moves.append((before, now))
    }
}
