@testable import PhotoPipeline
import Testing

@Suite("Event publisher: stamp order, whatever the order of delivery", .timeLimit(.minutes(1)))
struct EventOrderTests {
    @Test func eventsHandedOverOutOfOrderReachSubscribersInStampOrder() async {
        // Given three events stamped in order (as sections do under the pipeline's lock)
        let publisher = EventPublisher()
        var events = publisher.subscribe().makeAsyncIterator()
        let stamped = (1...3).map { publisher.stamp(.preview(index: $0)) }

        // When they are handed over last first (as threads releasing the lock may)
        publisher.deliver([stamped[2]])
        publisher.deliver([stamped[1]])
        publisher.deliver([stamped[0]])

        // Then subscribers get them in stamp order
        var received: [Int] = []
        for _ in 1...3 {
            if case .preview(let index)? = await events.next()?.kind { received.append(index) }
        }
        #expect(received == [1, 2, 3])
    }
}
