import Foundation
@testable import PhotoPipeline
import Testing

@Suite("Effects: photo events from the state before and after a section")
struct EffectsTests {
    func state(memoryBudget: Int = 100) -> PipelineState {
        PipelineState(
            pending: PendingOperations(maxConcurrentTransfers: 1, maxConcurrentFiltrations: 1),
            store: ImageStore(memoryBudget: memoryBudget, resumeBudget: 0, onDisk: [:]))
    }

    func photoEvents(_ effects: Effects) -> [String] {
        effects.events.compactMap { event in
            if case .photo(let index, let state) = event.kind { return "#\(index) \(state.name)" }
            return nil
        }
    }

    @Test func aWatchedPhotoIsAnnouncedFirstThenThePhotosAtRestTheStoreChanged() {
        // Given photo 0 filtered and photo 1 downloading, both held in memory
        var state = state()
        _ = state.store.keep(CachedImage(data: Data(count: 40)), as: .init(index: 0, variant: .thumbnail))
        _ = state.store.keep(CachedImage(data: Data(count: 40)), as: .init(index: 1, variant: .preview))
        _ = state.pending.start(TestRecords.operation(1, .download))
        var effects = Effects(transport: EventPublisher())

        // When photo 2's original arrives and evicts both
        effects.watch(2, in: state)
        effects.storeChanged(state.store.keep(CachedImage(data: Data(count: 90)), as: .init(index: 2, variant: .original)))
        effects.publishStateChanges(in: state)

        // Then photo 2 is announced, then photo 0 (at rest, now new); photo 1 still downloads
        #expect(photoEvents(effects) == ["#2 downloaded", "#0 new"])
    }

    @Test func nothingIsAnnouncedWhenTheDerivedStateDidNotChange() {
        var state = state()
        var effects = Effects(transport: EventPublisher())
        effects.watch(3, in: state)
        state.failures[3] = .init(reason: "gone")
        effects.publishStateChanges(in: state)
        effects.watch(3, in: state)
        _ = state.store.keep(CachedImage(data: Data(count: 10)), as: .init(index: 3, variant: .original))
        effects.publishStateChanges(in: state)

        // Failed once; holding an original does not change a failed photo's state
        #expect(photoEvents(effects) == ["#3 failed"])
        #expect(effects.events.map(\.sequence) == effects.events.map(\.sequence).sorted())
    }
}
