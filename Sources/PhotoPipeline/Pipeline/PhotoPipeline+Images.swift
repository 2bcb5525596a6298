import Foundation
import PhotoCodecs

/// Handing out images: what the web layer serves. Asking never starts work the viewport did not ask
/// for, except the full-size sepia image, which is made only on request.
extension PhotoPipeline {
    /// The cached `variant` of photo `index` (from memory, else from disk), counting a hit or miss.
    public func image(_ variant: ImageVariant, of index: Int) throws(PipelineError) -> CachedImage {
        guard records.indices.contains(index) else {
            throw .noSuchPhoto(index: index, count: records.count)
        }
        let key = ImageCache.Key(index: index, variant: variant)
        if let image = state.withLock({ state -> CachedImage? in
            let image = state.cache.image(for: key)
            if image != nil { state.stats.cacheHits += 1 }
            return image
        }) {
            return image
        }
        // Read outside the lock: the disk is slow next to everything the lock guards.
        let fromDisk = disk?.read(diskKey(index, variant)).map { CachedImage(data: $0) }
        return try state.withLock { state throws(PipelineError) in
            guard let fromDisk else {
                state.stats.cacheMisses += 1
                throw .notAvailable(index: index, variant: variant, state: records[index].state)
            }
            state.stats.cacheHits += 1
            handleEvictions(state.cache.insert(fromDisk, for: key), in: state)
            return fromDisk
        }
    }

    /// The full-size sepia image of photo `index`, made from its downloaded original on the
    /// filtration queue (so it counts against the CPU bound) and cached.
    public func fullSizeSepia(of index: Int) async throws(PipelineError) -> CachedImage {
        if let cached = try? image(.sepia, of: index) { return cached }
        let original = try image(.original, of: index)
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
