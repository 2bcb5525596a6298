import Foundation
import PhotoPipeline

extension EventPayloads.Queues {
    /// A hidden viewer's queues: nothing wanted, nothing running for it.
    init(idle strategy: SchedulingStrategy) {
        let none = Queue(pending: 0, executing: 0, suspended: false)
        self.download = none
        self.filtration = none
        self.strategy = strategy.name
        self.prefetch = strategy.prefetchMarginForDisplay
    }
}
