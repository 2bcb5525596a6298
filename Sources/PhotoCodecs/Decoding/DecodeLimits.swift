/// Bounds on what the decoders accept from untrusted input, checked from the header before pixels are allocated.
public struct DecodeLimits: Sendable, Equatable {
    /// Most pixels (declared width x height) an image may have.
    public var maxPixels: Int
    /// Most bytes for the decoded pixels, and for libjpeg's working memory (a progressive JPEG's coefficients).
    public var maxMemoryBytes: Int
    /// Most scans a progressive JPEG may have; each scan costs a pass over the whole image.
    public var maxProgressiveScans: Int

    /// Limits with defaults generous for photos: 50 megapixels, 512 MiB, 100 progressive scans.
    public init(maxPixels: Int = 50_000_000, maxMemoryBytes: Int = 512 * 1024 * 1024, maxProgressiveScans: Int = 100) {
        self.maxPixels = maxPixels
        self.maxMemoryBytes = maxMemoryBytes
        self.maxProgressiveScans = maxProgressiveScans
    }

    /// Throws `.tooManyPixels` for a declared size over `maxPixels`.
    func checkPixels(width: Int, height: Int) throws(ImageCodecError) {
        if width * height > maxPixels {
            throw .tooManyPixels(width: width, height: height, limit: maxPixels)
        }
    }

    /// Throws `.unsupported` when a pixel buffer of `bytes` would exceed `maxMemoryBytes`.
    func checkBuffer(bytes: Int, format: ImageFormat) throws(ImageCodecError) {
        if bytes > maxMemoryBytes {
            throw .unsupported(format: format, reason: "decoded pixels need \(bytes) bytes, over the memory limit of \(maxMemoryBytes)")
        }
    }
}
