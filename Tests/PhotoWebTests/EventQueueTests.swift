import Foundation
@testable import PhotoWeb
import Testing

@Suite("Event queue")
struct EventQueueTests {
    func event(_ id: UInt64, row: Int? = nil) -> OutgoingEvent {
        OutgoingEvent(id: id, name: row == nil ? .operation : .photo, made: .unknown, data: Data(#"{"n":\#(id)}"#.utf8),
                      key: row.map { .photo($0) })
    }

    @Test func aQueueItsWriterKeepsUpWithHoldsNoStorageOnceTaken() {
        // Given a stream whose writer takes each event soon after it comes (a crowd's viewer reading)
        var queue = EventQueue()
        for id in 1...300 {
            queue.append(event(UInt64(id)))
            #expect(queue.popFirst()?.id == UInt64(id))
        }
        // Then nothing is kept for the events gone: a thousand viewers do not each hold hundreds of places
        #expect(queue.count == 0 && queue.bytes == 0)
        #expect(queue.capacity == 0)
    }

    @Test func aQueueTakenEmptyPastFoldedEventsHoldsNoStorage() {
        // Given updates of one row folded into the latest while unsent, and an event of another kind
        var queue = EventQueue()
        for id in 1...100 { queue.append(event(UInt64(id), row: 7)) }
        queue.append(event(101))
        // When the writer takes what is left: the row's latest, then the other
        #expect(queue.popFirst()?.id == 100)
        #expect(queue.popFirst()?.id == 101)
        // Then the queue is empty and keeps nothing, and takes new events in order again
        #expect(queue.popFirst() == nil)
        #expect(queue.capacity == 0)
        queue.append(event(102, row: 7))
        queue.append(event(103, row: 7))
        #expect(queue.count == 1 && queue.popFirst()?.id == 103)
    }
}
