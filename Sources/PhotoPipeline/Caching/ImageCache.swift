/// A memory cache of encoded images with a byte budget: least recently used out first.
///
/// A value type with no lock of its own: the pipeline keeps it behind its one lock.
struct ImageCache {
    struct Key: Hashable {
        var index: Int
        var variant: ImageVariant
    }

    private struct Node {
        var image: CachedImage
        var older: Key?
        var newer: Key?
    }

    /// The most bytes kept; inserting past it evicts the least recently used entries.
    var budget: Int
    private(set) var totalBytes = 0
    private var nodes: [Key: Node] = [:]
    private var newest: Key?
    private var oldest: Key?

    init(budget: Int) {
        self.budget = budget
    }

    var count: Int { nodes.count }

    /// The image for `key`, marking it most recently used.
    mutating func image(for key: Key) -> CachedImage? {
        guard let node = nodes[key] else { return nil }
        unlink(key)
        link(key, node.image)
        return node.image
    }

    func contains(_ key: Key) -> Bool {
        nodes[key] != nil
    }

    /// Stores `image` and returns the keys evicted to stay within the budget (never `key` itself
    /// unless the image alone is larger than the budget).
    mutating func insert(_ image: CachedImage, for key: Key) -> [Key] {
        remove(key)
        link(key, image)
        totalBytes += image.data.count
        var evicted: [Key] = []
        while totalBytes > budget, let victim = oldest {
            remove(victim)
            evicted.append(victim)
        }
        return evicted
    }

    /// Removes `key`; returns whether it was there.
    @discardableResult
    mutating func remove(_ key: Key) -> Bool {
        guard let node = nodes[key] else { return false }
        unlink(key)
        totalBytes -= node.image.data.count
        return true
    }

    /// Empties the cache, returning every key it held.
    mutating func removeAll() -> [Key] {
        let keys = Array(nodes.keys)
        nodes.removeAll()
        newest = nil
        oldest = nil
        totalBytes = 0
        return keys
    }

    private mutating func link(_ key: Key, _ image: CachedImage) {
        nodes[key] = Node(image: image, older: newest, newer: nil)
        if let newest { nodes[newest]?.newer = key }
        newest = key
        if oldest == nil { oldest = key }
    }

    private mutating func unlink(_ key: Key) {
        guard let node = nodes.removeValue(forKey: key) else { return }
        if let older = node.older { nodes[older]?.newer = node.newer } else { oldest = node.newer }
        if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
    }
}
