import Foundation
@testable import PhotoWeb
import Testing
import PhotoPipeline
import Locking

/// What a shared stream's mux holds for a client that does not read: one carry per member, one
/// heartbeat, a capped number of control events, all counted in the unsent-bytes budget.
@Suite("A shared stream holds little for a client that does not read")
struct StreamMuxTests {
    private let viewer = ViewerID("rejoined")
    private let event = OutgoingEvent(id: 1, name: .snapshot, data: Data(repeating: 0x41, count: 10_000), key: nil)

    /// Waits (yielding, bounded) until `condition` holds.
    private func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestFailure("condition not met within 20 s") }
            await Task.yield()
        }
    }

    @Test func aRejoinWithdrawsTheItemTheCarryItSupersedesWasWaitingToDeliver() async throws {
        let unsent = UnsentEventBytes(budget: .max)
        let mux = StreamMux(unsent: unsent)
        let (viewer, event) = (viewer, event)

        // Given a carry parked with its event (nobody takes from the mux)
        mux.carry(viewer, generation: 1)
        let first = Task { await mux.deliver([event], of: viewer, generation: 1) }
        try await eventually { mux.queued == 1 }
        #expect(unsent.bytes >= event.data.count, "what waits in the mux counts in the budget")

        // When the viewer joins again and then a thousand times more
        var carries: [Task<Bool, Never>] = [first]
        for generation in 2...1_001 {
            mux.carry(viewer, generation: generation)
            carries.append(Task { await mux.deliver([event], of: viewer, generation: generation) })
        }
        try await eventually { mux.queued == 1 }

        // Then every superseded carry was told no, one item waits, and the budget counts just it
        for carry in carries.dropLast() { #expect(await carry.value == false) }
        #expect(mux.queued == 1)
        #expect(unsent.bytes < 2 * event.data.count)

        // And the last one is handed over when the writer reads
        guard case .events(let whose, _) = await mux.next() else { Issue.record("no event"); return }
        #expect(whose == viewer)
        #expect(await carries.last!.value)
        #expect(unsent.bytes == 0)
    }

    @Test func theWriterWaitingForItemsStopsWhenItsTaskIsCancelled() async throws {
        // Given a shared stream's writer waiting on an empty mux nobody closes
        let mux = StreamMux(unsent: UnsentEventBytes(budget: .max))
        let writer = Task { await mux.next() }
        // When its task is cancelled (a stopping server cancels its connections)
        writer.cancel()
        // Then the wait ends (a wait that ignored it would hang here)
        #expect(await writer.value == nil)
    }

    @Test func aCarryOfALeftViewerIsToldNoAndItsItemUncounted() async throws {
        let unsent = UnsentEventBytes(budget: .max)
        let mux = StreamMux(unsent: unsent)
        let (viewer, event) = (viewer, event)
        mux.carry(viewer, generation: 3)
        let carry = Task { await mux.deliver([event], of: viewer, generation: 3) }
        try await eventually { mux.queued == 1 }

        mux.retire(viewer, generation: 2)  // an older carry's end changes nothing
        #expect(mux.queued == 1)
        mux.retire(viewer, generation: 3)
        #expect(await carry.value == false)
        #expect(mux.queued == 0 && unsent.bytes == 0)
        #expect(await mux.deliver([event], of: viewer, generation: 3) == false, "a retired carry delivers nothing more")
    }

    @Test func heartbeatsWaitOnceAndControlEventsPastTheirCapCutTheConnection() async throws {
        let unsent = UnsentEventBytes(budget: .max)
        let cut = Cut()
        let mux = StreamMux(unsent: unsent, overflowed: { cut.happened() })
        for _ in 0..<1_000 { mux.post(.heartbeat) }
        #expect(mux.queued == 1)

        for _ in 0..<StreamMux.maxQueuedControls { mux.post(.control("left", Data("{}".utf8))) }
        #expect(mux.queued == 1 + StreamMux.maxQueuedControls)
        #expect(cut.count == 0)
        mux.post(.control("left", Data("{}".utf8)))
        #expect(cut.count == 1)
        #expect(await mux.next() == nil, "the stream closed")
        #expect(unsent.bytes == 0)
    }

    @Test func closingGivesBackEveryCountedByteAndTellsEveryCarryNo() async throws {
        let unsent = UnsentEventBytes(budget: .max)
        let mux = StreamMux(unsent: unsent)
        let event = event
        let carries = (0..<8).map { index in
            let viewer = ViewerID("v\(index)")
            mux.carry(viewer, generation: 1)
            return Task { await mux.deliver([event], of: viewer, generation: 1) }
        }
        mux.post(.control("left", Data("{}".utf8)))
        try await eventually { mux.queued == 9 }
        mux.close()
        for carry in carries { #expect(await carry.value == false) }
        #expect(unsent.bytes == 0)
    }
}

private final class Cut: Sendable {
    private let times = Locked(0)
    func happened() { times.withLock { $0 += 1 } }
    var count: Int { times.withLock { $0 } }
}
