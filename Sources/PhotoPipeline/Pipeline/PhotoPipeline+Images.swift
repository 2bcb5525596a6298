import Foundation
import PhotoCodecs

/// Handing out images: what the web layer serves. Asking never starts work the viewport did not ask
/// for, except the full-size sepia image, which is made only on request.
extension PhotoPipeline {
    /// The cached `variant` of photo `index` (from memory, else from disk), counting a hit or miss.
    /// Reads the disk on the calling thread: from async code use `loadImage`.
    public func image(_ variant: ImageVariant, of index: Int) throws(PipelineError) -> CachedImage {
        if let image = try imageInMemory(variant, of: index) { return image }
        return try keep(disk?.read(diskKey(index, variant)), as: variant, of: index)
    }

    /// `image(_:of:)` for async callers: a disk read happens on a Dispatch thread, never on the
    /// cooperative pool.
    public func loadImage(_ variant: ImageVariant, of index: Int) async throws(PipelineError) -> CachedImage {
        if let image = try imageInMemory(variant, of: index) { return image }
        guard let disk else { return try keep(nil, as: variant, of: index) }
        let key = diskKey(index, variant)
        let data = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: disk.read(key)) }
        }
        return try keep(data, as: variant, of: index)
    }

    private func imageInMemory(_ variant: ImageVariant, of index: Int) throws(PipelineError) -> CachedImage? {
        guard records.indices.contains(index) else {
            throw .noSuchPhoto(index: index, count: records.count)
        }
        return state.withLock { state in
            let image = state.cache.image(for: .init(index: index, variant: variant))
            if image != nil { state.stats.cacheHits += 1 }
            return image
        }
    }

    /// Puts bytes read back from disk into the memory cache, or counts the miss.
    private func keep(_ data: Data?, as variant: ImageVariant, of index: Int) throws(PipelineError) -> CachedImage {
        try state.withLock { state throws(PipelineError) in
            guard let data else {
                state.stats.cacheMisses += 1
                throw .notAvailable(index: index, variant: variant, state: records[index].state)
            }
            let image = CachedImage(data: data)
            state.stats.cacheHits += 1
            handleEvictions(state.cache.insert(image, for: .init(index: index, variant: variant)), in: state)
            return image
        }
    }

    /// The full-size sepia image of photo `index`, made from its downloaded original on the
    /// filtration queue (so it counts against the CPU bound) and cached.
    public func fullSizeSepia(of index: Int) async throws(PipelineError) -> CachedImage {
        if let cached = try? await loadImage(.sepia, of: index) { return cached }
        let original = try await loadImage(.original, of: index)
        let renderer = self.renderer
        let queue = state.withLock { $0.pending.filtrationQueue }
        let rendered: Result<EncodedImage, ImageCodecError> = await withCheckedContinuation { continuation in
            let operation = BlockOperation {
                continuation.resume(returning: Result { () throws(ImageCodecError) in
                    try renderer.fullSize(of: original.data)
                })
            }
            operation.queuePriority = .veryHigh
            queue.addOperation(operation)
        }
        switch rendered {
        case .success(let encoded):
            let image = CachedImage(data: encoded.data, format: encoded.format)
            keepOnDisk(encoded.data, index, .sepia)
            state.withLock { state in
                let evicted = state.cache.insert(image, for: .init(index: index, variant: .sepia))
                handleEvictions(evicted, in: state)
            }
            return image
        case .failure(let error):
            throw .renderFailed(index: index, error)
        }
    }
}
