import Foundation
@testable import PhotoPipeline
import Testing

@Suite("Event publisher", .timeLimit(.minutes(1)))
struct EventPublisherTests {
    @Test func subscribersThatGoAwayWhileEventsArePublishedNeitherDeadlockNorLinger() async {
        // Given a publisher that a thread keeps publishing to
        let publisher = EventPublisher()
        let publishing = Thread {
            while !Thread.current.isCancelled {
                publisher.publish(.preview(index: 0))
            }
        }
        publishing.start()

        // When subscribers come and their reading tasks are cancelled, again and again (a stream's
        // end runs inside the cancelled task's own lock, which each publish needs to wake a reader)
        for _ in 0..<300 {
            let stream = publisher.subscribe(bufferLimit: 4)
            let reader = Task { for await _ in stream {} }
            await Task.yield()
            reader.cancel()
            await reader.value
        }
        publishing.cancel()

        // Then every reader ended, and a later subscriber still gets events
        var fresh = publisher.subscribe().makeAsyncIterator()
        publisher.publish(.preview(index: 1))
        let event = await fresh.next()
        if case .preview(let index) = event?.kind { #expect(index >= 0) } else { Issue.record("no event") }
    }
}
