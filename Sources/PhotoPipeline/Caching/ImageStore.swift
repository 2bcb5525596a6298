/// What is kept of each photo, and where: images in memory, files in the results store, originals
/// travelling with a waiting filtration, bytes of cancelled downloads. A photo's resting state
/// (new, downloaded, filtered) is derived from here and stored nowhere else.
///
/// A value type with no lock of its own: the pipeline keeps it behind its one lock. It mirrors
/// which files the results store holds (each write or eviction is reported back), so that deciding
/// a state never calls the store, which has a lock of its own.
struct ImageStore {
    /// Images in memory, under the memory budget.
    private(set) var memory: ImageCache
    /// Bytes of cancelled downloads, under their own budget.
    var partials: PartialDownloads
    /// Files the results store holds, with their names there.
    private var onDisk: [ImageCache.Key: String]
    /// Photos whose original was handed to their filtration, which holds the bytes until it ends.
    private var handedToFiltration: Set<Int> = []
    private(set) var hits = 0
    private(set) var misses = 0

    /// A store with nothing in memory and the files `onDisk` names in the results store.
    init(memoryBudget: Int, resumeBudget: Int, onDisk: [ImageCache.Key: String]) {
        memory = ImageCache(budget: memoryBudget)
        partials = PartialDownloads(budget: resumeBudget)
        self.onDisk = onDisk
    }

    /// Photo `index`'s resting state: filtered with a sepia thumbnail, downloaded with its original,
    /// new without; as if it also held `extra` (what was just evicted, for the state before).
    func restingState(of index: Int, alsoHolding extra: Set<ImageVariant> = []) -> PhotoRecordState {
        func holds(_ variant: ImageVariant) -> Bool {
            let key = ImageCache.Key(index: index, variant: variant)
            return extra.contains(variant) || memory.contains(key) || onDisk[key] != nil
        }
        if holds(.thumbnail) { return .filtered }
        if holds(.original) || handedToFiltration.contains(index) { return .downloaded }
        return .new
    }

    /// Whether the results store holds `key`'s file.
    func isOnDisk(_ key: ImageCache.Key) -> Bool {
        onDisk[key] != nil
    }

    // MARK: Memory

    /// The image for `key` from memory, counted as a hit when there.
    mutating func image(for key: ImageCache.Key) -> CachedImage? {
        let image = memory.image(for: key)
        if image != nil { hits += 1 }
        return image
    }

    /// The image for `key` from memory for the pipeline's own use (not counted as a request).
    mutating func peek(_ key: ImageCache.Key) -> CachedImage? {
        memory.image(for: key)
    }

    /// Counts an image request that neither memory nor disk could answer.
    mutating func countMiss() {
        misses += 1
    }

    /// Keeps `image` in memory as `key`; returns the photos whose images were evicted to make room,
    /// each with its resting state before.
    mutating func keep(_ image: CachedImage, as key: ImageCache.Key) -> [Int: PhotoRecordState] {
        restingStatesBefore(losing: memory.insert(image, for: key))
    }

    /// Keeps the image read back from the results store for `key` in memory (a hit); see `keep`.
    mutating func keepReadBack(_ image: CachedImage, as key: ImageCache.Key) -> [Int: PhotoRecordState] {
        hits += 1
        return keep(image, as: key)
    }

    /// Empties memory (a memory warning) and drops the partial downloads; see `keep`.
    mutating func removeAllFromMemory() -> [Int: PhotoRecordState] {
        partials.removeAll()
        return restingStatesBefore(losing: memory.removeAll())
    }

    /// Forgets everything kept (a cold start): memory, the bytes kept for resuming, and the mirror of
    /// the results store (emptied once the lock is released); see `keep`.
    mutating func removeAll() -> [Int: PhotoRecordState] {
        partials.removeAll()
        let before = restingStatesBefore(losing: Array(onDisk.keys) + memory.removeAll())
        onDisk.removeAll()
        return before
    }

    // MARK: Disk

    /// Records that `key` is being written to the results store under `name`.
    mutating func markOnDisk(_ key: ImageCache.Key, as name: String) {
        onDisk[key] = name
    }

    /// Forgets the files the results store no longer holds; returns the photos that lost one, each
    /// with its resting state before.
    mutating func forgetOnDisk(_ names: [String]) -> [Int: PhotoRecordState] {
        let gone = Set(names)
        let keys = onDisk.filter { gone.contains($0.value) }.map(\.key)
        let before = restingStatesBefore(losing: keys)
        for key in keys { onDisk[key] = nil }
        return before
    }

    // MARK: Originals

    /// Photo `index`'s original now travels with its filtration (whatever memory evicts meanwhile).
    mutating func handOnToFiltration(_ index: Int) {
        handedToFiltration.insert(index)
    }

    /// Photo `index`'s filtration ended or was cancelled: it holds the original no more.
    mutating func filtrationEnded(_ index: Int) {
        handedToFiltration.remove(index)
    }

    /// Forgets photo `index`'s original (memory, and the mirror of the store, whose file the next
    /// download replaces): a retried photo is fetched again.
    mutating func forgetOriginal(_ index: Int) {
        let key = ImageCache.Key(index: index, variant: .original)
        memory.remove(key)
        onDisk[key] = nil
    }

    /// The resting state each photo of `keys` had while it still held them (call before they go).
    private func restingStatesBefore(losing keys: [ImageCache.Key]) -> [Int: PhotoRecordState] {
        Dictionary(grouping: keys, by: \.index).mapValues { lost in
            restingState(of: lost[0].index, alsoHolding: Set(lost.map(\.variant)))
        }
    }
}
