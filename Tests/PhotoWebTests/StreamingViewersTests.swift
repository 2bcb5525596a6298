import Foundation
import PhotoPipeline
@testable import PhotoWeb
import Testing

/// Issue 36: every page load makes a viewer, and most of a flood's never open a stream; the ticks and
/// the forwarder serve only the viewers that have opened one (`ViewerRegistry.streaming(in:)`), so a
/// viewer costs them nothing until then. A viewer is counted before its first stream's snapshot is
/// made, so no event falls between the snapshot and the forwarder's next look.
@Suite("Streaming viewers")
struct StreamingViewersTests {
    let viewers = TestViewers(maxViewers: 8, idleTimeout: .seconds(30), connectTimeout: .seconds(1))

    func audience() -> [ViewerID] {
        var audience = ChannelAudience()
        audience.refresh(for: viewers.channel)
        return audience.all.map(\.id)
    }

    @Test func aViewerIsServedFromItsFirstStreamOnCountedBeforeItsSnapshotIsMade() throws {
        let (loaded, streaming) = (try #require(viewers.create()), try #require(viewers.create()))
        #expect(viewers.registry.streaming(in: viewers.channel).isEmpty && audience().isEmpty)
        let before = viewers.registry.streamingVersion

        var countedAtSnapshot = false
        _ = streaming.outbox.attach(lastEventID: nil) {
            countedAtSnapshot = viewers.registry.streaming(in: viewers.channel).map(\.id) == [streaming.id]
            return []
        }

        #expect(countedAtSnapshot, "the forwarder must see the viewer before its snapshot reads the list")
        #expect(viewers.registry.streamingVersion != before, "the forwarder's audience is worked out again")
        #expect(audience() == [streaming.id], "the page load that opened no stream is not served")
        #expect(viewers.registry.all(in: viewers.channel).count == 2, "both are still viewers")
        #expect(loaded.outbox.pendingCount == 0)
    }

    @Test func aSecondStreamChangesNothingAndALeavingViewerIsServedNoMore() throws {
        let viewer = try #require(viewers.create())
        _ = viewer.outbox.attach(lastEventID: nil) { [] }
        let counted = viewers.registry.streamingVersion
        _ = viewer.outbox.attach(lastEventID: nil) { [] }
        #expect(viewers.registry.streamingVersion == counted)

        _ = viewers.registry.remove(viewer.id)
        #expect(viewers.registry.streamingVersion != counted)
        #expect(audience().isEmpty)
    }

    @Test func theViewersThatNeverStreamedAreDroppedInTurnPastOnesThatLeftOrStreamed() throws {
        // Made in this order: one that will leave, one that streams, two that never do
        let left = try #require(viewers.create())
        let streaming = try #require(viewers.create())
        let (first, second) = (try #require(viewers.create()), try #require(viewers.create()))
        _ = viewers.registry.remove(left.id)
        _ = streaming.outbox.attach(lastEventID: nil) { [] }

        #expect(viewers.dropIdle(now: .now).isEmpty, "all within the connect timeout")
        let dropped = Set(viewers.dropIdle(now: .now + .seconds(2)).map(\.id))
        #expect(dropped == [first.id, second.id], "the one that left and the streaming one hold nobody back")
        #expect(viewers.registry.all(in: viewers.channel).map(\.id) == [streaming.id])
        // The streaming one goes as any stream-less viewer does: after its idle timeout once its stream is gone.
        #expect(viewers.dropIdle(now: .now + .seconds(60)).isEmpty, "its stream is still attached")
    }

    @Test func aViewerGoneBeforeItsFirstStreamIsNeverCounted() throws {
        let (kept, dropped) = (try #require(viewers.create()), try #require(viewers.create()))
        _ = kept.outbox.attach(lastEventID: nil) { [] }
        let counted = viewers.registry.streamingVersion
        // A page load whose stream never came is dropped after the connect timeout.
        #expect(viewers.dropIdle(now: .now + .seconds(2)).map(\.id) == [dropped.id])
        #expect(viewers.registry.streamingVersion == counted, "a viewer that never streamed changes no audience")
        _ = dropped.outbox.attach(lastEventID: nil) { [] }
        #expect(audience() == [kept.id])
    }
}
