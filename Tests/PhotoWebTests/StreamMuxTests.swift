import Foundation
@testable import PhotoWeb
import Testing
import PhotoPipeline
import Locking

/// What a shared stream's mux holds for a client that does not read: one entry per member (its
/// events stay in its outbox until the writer pulls them), one heartbeat, a capped number of control
/// events; the items it holds count in the unsent-bytes budget.
@Suite("A shared stream holds little for a client that does not read")
struct StreamMuxTests {
    private let viewer = ViewerID("rejoined")

    @Test func aMemberReadyAgainAndAgainWaitsOnceAndARejoinWithdrawsTheOlderEntry() async throws {
        let unsent = UnsentEventBytes(budget: .max)
        let mux = StreamMux(unsent: unsent)
        // Given a member whose outbox says it is ready, many times over, while nobody takes from the mux
        mux.carry(viewer, generation: 1)
        for _ in 0..<100 { mux.ready(viewer, generation: 1) }
        #expect(mux.queued == 1)
        #expect(unsent.bytes == 0, "its events stay in its outbox, counted there")

        // When the viewer joins again and then a thousand times more
        for generation in 2...1_001 {
            mux.carry(viewer, generation: generation)
            mux.ready(viewer, generation: generation)
            mux.ready(viewer, generation: generation - 1)  // a superseded outbox's late wake-up
        }

        // Then one entry waits, the last carry's, and the writer is handed it
        #expect(mux.queued == 1)
        guard case .ready(let whose, let generation) = await mux.next() else { Issue.record("no member ready"); return }
        #expect(whose == viewer && generation == 1_001)
        #expect(mux.queued == 0)
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

    @Test func aWaitingWriterIsHandedAMemberTheMomentItIsReady() async throws {
        let mux = StreamMux(unsent: UnsentEventBytes(budget: .max))
        mux.carry(viewer, generation: 1)
        let writer = Task { await mux.next() }
        // Whether the writer already waits or not, the entry reaches it
        mux.ready(viewer, generation: 1)
        guard case .ready(let whose, 1)? = await writer.value else { Issue.record("the writer was not handed the member"); return }
        #expect(whose == viewer)
        #expect(mux.queued == 0)
    }

    @Test func aRetiredCarrysEntryIsWithdrawnAndItsLaterWakeUpsIgnored() async throws {
        let mux = StreamMux(unsent: UnsentEventBytes(budget: .max))
        mux.carry(viewer, generation: 3)
        mux.ready(viewer, generation: 3)
        #expect(mux.queued == 1)

        mux.retire(viewer, generation: 2)  // an older carry's end changes nothing
        #expect(mux.queued == 1)
        mux.retire(viewer, generation: 3)
        #expect(mux.queued == 0)
        mux.ready(viewer, generation: 3)
        #expect(mux.queued == 0, "a retired carry is not pulled again")
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

    @Test func closingGivesBackEveryCountedByteAndDropsWhatWaited() async throws {
        let unsent = UnsentEventBytes(budget: .max)
        let mux = StreamMux(unsent: unsent)
        for index in 0..<8 {
            let viewer = ViewerID("v\(index)")
            mux.carry(viewer, generation: 1)
            mux.ready(viewer, generation: 1)
        }
        mux.post(.control("left", Data("{}".utf8)))
        mux.post(.heartbeat)
        #expect(mux.queued == 10)
        #expect(unsent.bytes > 0)
        mux.close()
        #expect(mux.queued == 0 && unsent.bytes == 0)
        #expect(await mux.next() == nil)
        mux.ready(ViewerID("v0"), generation: 1)
        #expect(mux.queued == 0, "nothing is queued once closed")
    }
}

private final class Cut: Sendable {
    private let times = Locked(0)
    func happened() { times.withLock { $0 += 1 } }
    var count: Int { times.withLock { $0 } }
}

@Suite("A shared stream that carries nobody still gets heartbeats")
struct EmptyStreamHeartbeatTests {
    @Test func onlyStreamsCarryingNobodyAreSentOneAndOneWaitsAtMost() throws {
        // Given two open streams, one carrying a viewer (its outbox asks for its heartbeats)
        let viewers = TestViewers(maxViewers: 4, idleTimeout: .seconds(30))
        let streams = SharedStreams()
        let (empty, carrying) = (streams.open(cutConnection: {}), streams.open(cutConnection: {}))
        try carrying.join(try #require(viewers.create()), lastEventID: nil) { [] }
        let queuedByJoin = carrying.mux.queued

        // When heartbeats are sent, several intervals running while nobody writes
        for _ in 0..<3 { streams.heartbeatEmpty() }

        // Then the empty stream has one heartbeat waiting, and the other nothing more than its join
        #expect(empty.mux.queued == 1)
        guard case .item(.heartbeat)? = empty.mux.nextIfReady() else { Issue.record("no heartbeat"); return }
        #expect(carrying.mux.queued == queuedByJoin)
        // And a stream that was closed is not sent one
        streams.close(empty.id)
        streams.heartbeatEmpty()
        #expect(empty.mux.queued == 0)
    }
}
