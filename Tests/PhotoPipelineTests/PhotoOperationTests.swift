import Foundation
@testable import PhotoPipeline
import Testing

@Suite("PhotoOperation: scheduling decided under the lock, told to the queue after")
struct PhotoOperationTests {
    @Test func aDecisionIsToldOnlyWhenItChangesAndTheGateHoldsTheOperationBack() {
        let operation = TestRecords.operation(0, .download)

        #expect(operation.decide(priority: .visible, mayStart: true))
        #expect(!operation.decide(priority: .visible, mayStart: true))
        #expect(operation.queuePriority == .normal)  // not told yet
        operation.applyDecision()
        #expect(operation.queuePriority == .veryHigh)

        // Closing the gate keeps the priority and holds the operation back, until it is cancelled
        #expect(operation.decide(priority: nil, mayStart: false))
        operation.applyDecision()
        #expect(operation.queuePriority == .veryHigh)
        #expect(!operation.isReady)
        operation.cancel()
        #expect(operation.isReady)
    }
}
