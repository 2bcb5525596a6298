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

    /// Lock order: a leaf. The controller and the pipeline are called after it is released.
    private let state = Mutex(State())

    init(id: ViewerID, outbox: EventOutbox) {
        self.id = id
        self.outbox = outbox
    }

    /// The viewer's controller, made on first use once the list is loaded. Made outside this
    /// session's lock (an eager controller asks the pipeline for every row as it is made).
    func controller(on pipeline: PhotoPipeline, strategy: SchedulingStrategy) -> PhotoListController {
        if let controller = state.withLock({ $0.controller }) { return controller }
        let made = PhotoListController(pipeline: pipeline, viewer: id, strategy: strategy)
        return state.withLock { state in
            if let controller = state.controller { return controller }
            state.controller = made
            return made
        }
    }

    /// The viewer's controller, if it has one yet.
    var existingController: PhotoListController? {
        state.withLock { $0.controller }
    }

    /// The queue counts if they changed since last sent (for the periodic `queues` event).
    func queuesIfChanged() -> EventPayloads.Queues? {
        takeQueues(onlyIfChanged: true)
    }

    /// The viewer's queue counts now (for a snapshot).
    func currentQueues() -> EventPayloads.Queues? {
        takeQueues(onlyIfChanged: false)
    }

    /// Reads the counts (outside this session's lock: the pipeline takes its own) and remembers
    /// them as sent.
    private func takeQueues(onlyIfChanged: Bool) -> EventPayloads.Queues? {
        guard let controller = state.withLock({ $0.controller }) else { return nil }
        let queues = EventPayloads.Queues(controller.queueStatus)
        return state.withLock { state in
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
