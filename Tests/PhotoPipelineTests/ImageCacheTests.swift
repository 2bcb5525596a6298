import Foundation
@testable import PhotoPipeline
import Testing

@Suite("Image cache")
struct ImageCacheTests {
    func image(_ size: Int) -> CachedImage { CachedImage(data: Data(count: size)) }
    func key(_ index: Int) -> ImageCache.Key { .init(index: index, variant: .thumbnail) }

    @Test func evictsTheLeastRecentlyUsedFirst() {
        var cache = ImageCache(budget: 300)
        _ = cache.insert(image(100), for: key(0))
        _ = cache.insert(image(100), for: key(1))
        _ = cache.insert(image(100), for: key(2))
        _ = cache.image(for: key(0))  // 1 is now the oldest

        let evicted = cache.insert(image(100), for: key(3))

        #expect(evicted == [key(1)])
        #expect(cache.totalBytes == 300)
        #expect(cache.contains(key(0)) && cache.contains(key(2)) && cache.contains(key(3)))
    }

    @Test func replacingAnEntryCountsItsBytesOnce() {
        var cache = ImageCache(budget: 1_000)
        _ = cache.insert(image(400), for: key(0))
        _ = cache.insert(image(300), for: key(0))
        #expect(cache.totalBytes == 300)
        #expect(cache.count == 1)
        #expect(cache.removeAll() == [key(0)])
        #expect(cache.totalBytes == 0)
    }
}
