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
        guard case .ready(let whose, let generation) = mux.nextIfReady() else { Issue.record("no member ready"); return }
        #expect(whose == viewer && generation == 1_001)
        #expect(mux.queued == 0)
    }

    @Test func theWritersWakeUpIsCalledOnceWhenAnEntryComesAndNotWhileOneWaits() async throws {
        let mux = StreamMux(unsent: UnsentEventBytes(budget: .max))
        let wakes = Cut()
        mux.carry(viewer, generation: 1)
        // Given a writer that took everything and asked to be woken
        #expect(mux.wakeWhenReady { wakes.happened() })
        // When a member becomes ready, then a heartbeat is posted
        mux.ready(viewer, generation: 1)
        mux.post(.heartbeat)
        // Then it was woken once, and both wait for it in order
        #expect(wakes.count == 1)
        guard case .ready(let whose, 1)? = mux.nextIfReady(), case .item(.heartbeat)? = mux.nextIfReady() else {
            Issue.record("the entries are not the member's and then the heartbeat"); return
        }
        #expect(whose == viewer)
        // And a writer asking to be woken while an entry waits is told to take it now
        mux.post(.control("left", Data("{}".utf8)))
        #expect(!mux.wakeWhenReady { wakes.happened() })
        #expect(mux.nextIfReady() != nil && mux.nextIfReady() == nil)
        // And closing wakes a waiting writer, so it sees the end
        #expect(mux.wakeWhenReady { wakes.happened() })
        mux.close()
        #expect(wakes.count == 2 && mux.isClosed)
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
        #expect(mux.isClosed && mux.nextIfReady() == nil, "the stream closed")
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
        #expect(mux.nextIfReady() == nil)
        mux.ready(ViewerID("v0"), generation: 1)
        #expect(mux.queued == 0, "nothing is queued once closed")
    }
}

private final class Cut: Sendable {
    private let times = Locked(0)
    func happened() { times.withLock { $0 += 1 } }
    var count: Int { times.withLock { $0 } }
}
