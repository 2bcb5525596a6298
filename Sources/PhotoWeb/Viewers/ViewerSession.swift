import Foundation
import PhotoPipeline
import Synchronization

/// One viewer (a browser tab or a script): its controller on the shared pipeline and its outbox.
final class ViewerSession: Sendable {
    let id: ViewerID
    let outbox: EventOutbox

    private struct State {
        var controller: PhotoListController?
        var lastQueues: EventPayloads.Queues?
    }

    private let state = Mutex(State())

    init(id: ViewerID, outbox: EventOutbox) {
        self.id = id
        self.outbox = outbox
    }

    /// The viewer's controller, made on first use once the list is loaded.
    func controller(on pipeline: PhotoPipeline, strategy: SchedulingStrategy) -> PhotoListController {
        state.withLock { state in
            if let controller = state.controller { return controller }
            let controller = PhotoListController(pipeline: pipeline, viewer: id, strategy: strategy)
            state.controller = controller
            return controller
        }
    }

    /// The queue counts if they changed since last sent (for the periodic `queues` event).
    func queuesIfChanged() -> EventPayloads.Queues? {
        takeQueues(onlyIfChanged: true)
    }

    /// The viewer's queue counts now (for a snapshot).
    func currentQueues() -> EventPayloads.Queues? {
        takeQueues(onlyIfChanged: false)
    }

    /// Reads the counts and remembers them as sent.
    private func takeQueues(onlyIfChanged: Bool) -> EventPayloads.Queues? {
        state.withLock { state in
            guard let controller = state.controller else { return nil }
            let queues = EventPayloads.Queues(controller.queueStatus)
            if onlyIfChanged, queues == state.lastQueues { return nil }
            state.lastQueues = queues
            return queues
        }
    }

    /// The viewer left: cancel what only it wanted.
    func close() {
        let controller = state.withLock { $0.controller }
        controller?.close()
        outbox.close()
    }
}
