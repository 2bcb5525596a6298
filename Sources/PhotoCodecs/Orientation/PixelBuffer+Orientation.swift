extension PixelBuffer {
    /// The pixels turned and mirrored to stand upright per `orientation`; runs on the caller's thread.
    public func oriented(_ orientation: ImageOrientation) -> PixelBuffer {
        guard orientation != .up else { return self }
        let (outWidth, outHeight) = orientation.swapsAxes ? (height, width) : (width, height)
        let source = source(for: orientation)
        var out = [UInt8](repeating: 0, count: bytes.count)
        bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                var target = 0
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        let (sx, sy) = source(x, y)
                        let start = (sy * width + sx) * channels
                        for c in 0..<channels { output[target + c] = input[start + c] }
                        target += channels
                    }
                }
            }
        }
        return PixelBuffer(width: outWidth, height: outHeight, channels: channels, bytes: out)
    }

    /// Where the upright pixel (x, y) comes from in the stored image.
    private func source(for orientation: ImageOrientation) -> (Int, Int) -> (Int, Int) {
        let w = width, h = height
        return switch orientation {
        case .up: { x, y in (x, y) }
        case .upMirrored: { x, y in (w - 1 - x, y) }
        case .down: { x, y in (w - 1 - x, h - 1 - y) }
        case .downMirrored: { x, y in (x, h - 1 - y) }
        case .leftMirrored: { x, y in (y, x) }
        case .right: { x, y in (y, h - 1 - x) }
        case .rightMirrored: { x, y in (w - 1 - y, h - 1 - x) }
        case .left: { x, y in (w - 1 - y, x) }
        }
    }
}
