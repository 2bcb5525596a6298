/// A memory cache of encoded images with a byte budget: least recently used out first.
///
/// A value type with no lock of its own: the image store keeps it, behind the pipeline's one lock.
struct ImageCache {
    /// One photo's one variant.
    struct Key: Hashable {
        var index: Int
        var variant: ImageVariant
    }

    private var images: LRUCache<Key, CachedImage>

    init(budget: Int) {
        images = LRUCache(budget: budget) { $0.data.count }
    }

    /// Bytes of images held.
    var totalBytes: Int { images.totalBytes }
    var count: Int { images.count }

    /// The image for `key`, marking it most recently used.
    mutating func image(for key: Key) -> CachedImage? {
        images.value(for: key)
    }

    func contains(_ key: Key) -> Bool {
        images.contains(key)
    }

    /// Stores `image` and returns the keys evicted to stay within the budget (never `key` itself
    /// unless the image alone is larger than the budget).
    mutating func insert(_ image: CachedImage, for key: Key) -> [Key] {
        images.insert(image, for: key)
    }

    /// Removes `key`; returns whether it was there.
    @discardableResult
    mutating func remove(_ key: Key) -> Bool {
        images.remove(key) != nil
    }

    /// Empties the cache, returning every key it held.
    mutating func removeAll() -> [Key] {
        images.removeAll()
    }
}
