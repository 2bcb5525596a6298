/// An 8-bit RGB or RGBA image held in memory, rows top to bottom, no padding.
public struct PixelBuffer: Sendable, Equatable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Bytes per pixel: 3 for RGB, 4 for RGBA (alpha not premultiplied).
    public var channels: Int
    /// Row-major, tightly packed samples: `width * height * channels` bytes.
    public var bytes: [UInt8]

    /// Wraps `bytes`, which must hold exactly `width * height * channels` samples with 3 or 4 channels.
    public init(width: Int, height: Int, channels: Int, bytes: [UInt8]) {
        precondition(width > 0 && height > 0, "PixelBuffer needs a positive size, got \(width)x\(height)")
        precondition(channels == 3 || channels == 4, "PixelBuffer holds RGB or RGBA, got \(channels) channels")
        precondition(bytes.count == width * height * channels,
                     "PixelBuffer of \(width)x\(height)x\(channels) needs \(width * height * channels) bytes, got \(bytes.count)")
        self.width = width
        self.height = height
        self.channels = channels
        self.bytes = bytes
    }

    /// Whether the pixels carry an alpha channel.
    public var hasAlpha: Bool { channels == 4 }

    /// The samples of the pixel at (`x`, `y`), `channels` of them.
    public subscript(x: Int, y: Int) -> [UInt8] {
        let start = (y * width + x) * channels
        return Array(bytes[start..<start + channels])
    }

    /// The size and layout, not the megabytes of samples.
    public var description: String {
        "PixelBuffer(\(width)x\(height), \(hasAlpha ? "RGBA" : "RGB"))"
    }
}
