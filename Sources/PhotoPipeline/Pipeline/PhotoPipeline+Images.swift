import Foundation
import PhotoCodecs

/// Handing out images: what the web layer serves. Asking never starts work the viewport did not ask
/// for, except the full-size sepia image, which is made only on request.
extension PhotoPipeline {
    /// The cached `variant` of photo `index`, counting a cache hit or miss.
    public func image(_ variant: ImageVariant, of index: Int) throws(PipelineError) -> CachedImage {
        let result: Result<CachedImage, PipelineError> = state.withLock { state in
            guard records.indices.contains(index) else {
                return .failure(.noSuchPhoto(index: index, count: records.count))
            }
            guard let image = state.cache.image(for: .init(index: index, variant: variant)) else {
                state.stats.cacheMisses += 1
                return .failure(.notAvailable(index: index, variant: variant, state: records[index].state))
            }
            state.stats.cacheHits += 1
            return .success(image)
        }
        return try result.get()
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
