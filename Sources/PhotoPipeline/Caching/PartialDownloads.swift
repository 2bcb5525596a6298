import HTTPTransfer

/// Bytes of cancelled downloads with their origin's validator, kept so that the next attempt asks
/// only for the rest: under a byte budget, least recently used out first.
///
/// A value type with no lock of its own: the image store keeps it, behind the pipeline's one lock.
struct PartialDownloads {
    private var held: LRUCache<Int, ResumableData>

    /// Keeps at most `budget` bytes; 0 keeps none (every download starts from the first byte).
    init(budget: Int) {
        held = LRUCache(budget: budget) { $0.data.count }
    }

    /// Bytes held.
    var totalBytes: Int { held.totalBytes }

    /// Keeps `data` for photo `index`, in place of any older bytes of it, evicting others past the budget.
    mutating func keep(_ data: ResumableData, for index: Int) {
        _ = held.insert(data, for: index)
    }

    /// Takes photo `index`'s bytes out: they travel with the download that resumes them.
    mutating func take(_ index: Int) -> ResumableData? {
        held.remove(index)
    }

    /// Drops every photo's bytes.
    mutating func removeAll() {
        _ = held.removeAll()
    }
}
