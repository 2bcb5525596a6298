/// Values under a byte budget, least recently used out first: the memory cache's images and the
/// partial downloads kept for resuming.
///
/// A value type with no lock of its own: its owner keeps it behind the pipeline's one lock.
struct LRUCache<Key: Hashable, Value> {
    private struct Node {
        var value: Value
        var cost: Int
        var older: Key?
        var newer: Key?
    }

    /// The most bytes kept; inserting past it evicts the least recently used entries.
    var budget: Int
    private(set) var totalBytes = 0
    private let cost: (Value) -> Int
    private var nodes: [Key: Node] = [:]
    private var newest: Key?
    private var oldest: Key?

    /// An empty cache of at most `budget` bytes, a value weighing `cost(value)`.
    init(budget: Int, cost: @escaping (Value) -> Int) {
        self.budget = budget
        self.cost = cost
    }

    var count: Int { nodes.count }

    /// The value for `key`, marking it most recently used.
    mutating func value(for key: Key) -> Value? {
        guard let node = nodes[key] else { return nil }
        unlink(key)
        link(key, node.value, cost: node.cost)
        return node.value
    }

    func contains(_ key: Key) -> Bool {
        nodes[key] != nil
    }

    /// Stores `value` and returns the keys evicted to stay within the budget (never `key` itself
    /// unless the value alone is larger than the budget).
    mutating func insert(_ value: Value, for key: Key) -> [Key] {
        remove(key)
        let weight = cost(value)
        link(key, value, cost: weight)
        totalBytes += weight
        var evicted: [Key] = []
        while totalBytes > budget, let victim = oldest {
            remove(victim)
            evicted.append(victim)
        }
        return evicted
    }

    /// Removes `key` and returns its value, if it was there.
    @discardableResult
    mutating func remove(_ key: Key) -> Value? {
        guard let node = nodes[key] else { return nil }
        unlink(key)
        totalBytes -= node.cost
        return node.value
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

    private mutating func link(_ key: Key, _ value: Value, cost: Int) {
        nodes[key] = Node(value: value, cost: cost, older: newest, newer: nil)
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
