import Foundation
import HTTPTransfer
@testable import PhotoPipeline
import Testing

@Suite("Image store: what is held where, and the resting state it gives")
struct ImageStoreTests {
    func image(_ size: Int) -> CachedImage { CachedImage(data: Data(count: size)) }
    func key(_ index: Int, _ variant: ImageVariant) -> ImageCache.Key { .init(index: index, variant: variant) }
    func store(memory: Int, resume: Int = 0) -> ImageStore { ImageStore(memoryBudget: memory, resumeBudget: resume, onDisk: [:]) }

    @Test func aPhotosRestingStateFollowsWhatIsHeld() {
        var store = self.store(memory: 1_000)
        #expect(store.restingState(of: 0) == .new)

        _ = store.keep(image(10), as: key(0, .original))
        #expect(store.restingState(of: 0) == .downloaded)
        _ = store.keep(image(10), as: key(0, .preview))
        #expect(store.restingState(of: 0) == .downloaded)
        _ = store.keep(image(10), as: key(0, .thumbnail))
        #expect(store.restingState(of: 0) == .filtered)

        store.forgetOriginal(0)
        #expect(store.restingState(of: 0) == .filtered)
    }

    @Test func anEvictionReportsTheRestingStateThePhotoHadBefore() {
        var store = self.store(memory: 100)
        _ = store.keep(image(60), as: key(0, .thumbnail))

        let before = store.keep(image(60), as: key(1, .original))

        #expect(before == [0: .filtered])
        #expect(store.restingState(of: 0) == .new)
        #expect(store.restingState(of: 1) == .downloaded)
    }

    @Test func aFileInTheResultsStoreKeepsAPhotoDoneAfterMemoryLetsGoOfIt() {
        // Given photo 2's thumbnail in memory and being written to the results store
        var store = self.store(memory: 100)
        _ = store.keep(image(60), as: key(2, .thumbnail))
        store.markOnDisk(key(2, .thumbnail), as: "two-thumbnail")

        // When memory evicts it, the photo is still done
        _ = store.keep(image(60), as: key(3, .thumbnail))
        #expect(store.restingState(of: 2) == .filtered)

        // And when the results store evicts it too, the photo is new, and that is reported
        #expect(store.forgetOnDisk(["two-thumbnail", "unknown"]) == [2: .filtered])
        #expect(store.restingState(of: 2) == .new)
    }

    @Test func anOriginalTravellingWithItsFiltrationKeepsThePhotoDownloaded() {
        var store = self.store(memory: 10)
        store.handOnToFiltration(4)
        _ = store.keep(image(20), as: key(4, .original))  // over the budget: not kept in memory
        #expect(store.restingState(of: 4) == .downloaded)

        store.filtrationEnded(4)
        #expect(store.restingState(of: 4) == .new)
    }

    @Test func requestsCountHitsAndMissesButThePipelinesOwnReadsDoNot() {
        var store = self.store(memory: 1_000)
        _ = store.keep(image(10), as: key(0, .original))
        _ = store.peek(key(0, .original))
        _ = store.image(for: key(0, .original))
        _ = store.keepReadBack(image(10), as: key(0, .thumbnail))
        store.countMiss()
        #expect(store.hits == 2 && store.misses == 1)
    }

    @Test func partialDownloadsStayUnderTheirBudgetAndAMemoryWarningDropsThem() {
        func partial(_ size: Int) -> ResumableData {
            ResumableData(data: Data(count: size), validator: .entityTag("\"x\""))
        }
        var store = self.store(memory: 1_000, resume: 250)
        store.partials.keep(partial(100), for: 0)
        store.partials.keep(partial(100), for: 1)
        store.partials.keep(partial(100), for: 2)  // past the budget: photo 0's, the oldest, go
        #expect(store.partials.totalBytes == 200)
        #expect(store.partials.take(0) == nil)
        #expect(store.partials.take(1) == partial(100))
        #expect(store.partials.totalBytes == 100)  // taken out: they travel with the download

        _ = store.removeAllFromMemory()
        #expect(store.partials.totalBytes == 0)
    }
}
