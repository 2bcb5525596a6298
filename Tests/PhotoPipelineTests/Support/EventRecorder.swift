import Foundation
@testable import PhotoPipeline

/// Records a pipeline's events and lets a test await a condition on them, woken by each event
/// (the timeout is only a safety net that fails the test).
actor EventRecorder {
    struct TimedOut: Error, CustomStringConvertible {
        let what: String
        let events: [PipelineEvent]
        var description: String {
            "timed out waiting for \(what); \(events.count) events: \(events.suffix(12).map(\.summary).joined(separator: ", "))"
        }
    }

    private(set) var events: [PipelineEvent] = []
    private var abandoned = Set<UUID>()
    private var waiters: [(id: UUID, condition: @Sendable ([PipelineEvent]) -> Bool, continuation: CheckedContinuation<Void, any Error>)] = []

    init(_ pipeline: PhotoPipeline) {
        let stream = pipeline.events.subscribe()
        Task { await self.consume(stream) }
    }

    private func consume(_ stream: AsyncStream<PipelineEvent>) async {
        for await event in stream {
            events.append(event)
            let ready = waiters.filter { $0.condition(events) }
            waiters.removeAll { waiter in ready.contains { $0.id == waiter.id } }
            ready.forEach { $0.continuation.resume() }
        }
    }

    /// Waits until `condition` holds for the events so far.
    func wait(
        for what: String, timeout: Duration = .seconds(20),
        until condition: @escaping @Sendable ([PipelineEvent]) -> Bool
    ) async throws {
        if condition(events) { return }
        let id = UUID()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { continuation in
                        Task { await self.add(id, condition, continuation) }
                    }
                } onCancel: {
                    Task { await self.drop(id) }
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw TimedOut(what: what, events: await self.events)
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    private func add(_ id: UUID, _ condition: @escaping @Sendable ([PipelineEvent]) -> Bool, _ continuation: CheckedContinuation<Void, any Error>) {
        if abandoned.remove(id) != nil {
            continuation.resume(throwing: CancellationError())
        } else if condition(events) {
            continuation.resume()
        } else {
            waiters.append((id, condition, continuation))
        }
    }

    /// Gives up waiter `id` (its wait timed out), even if it has not been added yet.
    private func drop(_ id: UUID) {
        if let waiter = waiters.first(where: { $0.id == id }) {
            waiters.removeAll { $0.id == id }
            waiter.continuation.resume(throwing: CancellationError())
        } else {
            abandoned.insert(id)
        }
    }

    /// Waits until photo `index` reaches a state for which `matches` is true.
    func wait(photo index: Int, _ what: String, timeout: Duration = .seconds(20), _ matches: @escaping @Sendable (PhotoRecordState) -> Bool) async throws {
        try await wait(for: "photo \(index) \(what)", timeout: timeout) { events in
            events.contains { event in
                if case .photo(index, let state) = event.kind { return matches(state) }
                return false
            }
        }
    }

    /// Operation events of `queue` with `outcome`, in order.
    func operations(_ queue: QueueKind, _ outcome: OperationEvent.Outcome) -> [Int] {
        events.compactMap { event in
            guard case .operation(let operation) = event.kind, operation.queue == queue, operation.outcome == outcome
            else { return nil }
            return operation.index
        }
    }
}

extension PipelineEvent {
    var summary: String {
        switch kind {
        case .photo(let index, let state): "#\(index) \(state.name)"
        case .preview(let index): "#\(index) preview"
        case .partialPreview(let index, let sequence, _): "#\(index) partial \(sequence)"
        case .operation(let operation): "\(operation.queue.rawValue) #\(operation.index) \(operation.outcome.rawValue)"
        }
    }
}
