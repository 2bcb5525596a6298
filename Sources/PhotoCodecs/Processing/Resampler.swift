/// Downscales images by area averaging (a box filter), the right filter for large reductions.
public enum Resampler {
    /// `image` scaled to `height` rows (at least 1) keeping the aspect ratio, width `max(1, round(w * height / h))`;
    /// returned unchanged when it is already no taller. With alpha, colours are averaged weighted by alpha
    /// so transparent pixels do not bleed their colour into the edges.
    public static func scaled(_ image: PixelBuffer, toHeight height: Int) -> PixelBuffer {
        let targetHeight = max(1, height)
        guard image.height > targetHeight else { return image }
        let targetWidth = max(1, Int((Double(image.width) * Double(targetHeight) / Double(image.height)).rounded()))
        let rows = BoxWeights(source: image.height, target: targetHeight)
        let columns = BoxWeights(source: image.width, target: targetWidth)
        let channels = image.channels
        let rowSamples = image.width * channels
        var sums = [Float](repeating: 0, count: rowSamples)
        let output = [UInt8](unsafeUninitializedCapacity: targetWidth * targetHeight * channels) { out, count in
            image.bytes.withUnsafeBufferPointer { source in
                sums.withUnsafeMutableBufferPointer { sums in
                    for y in 0..<targetHeight {
                        // Vertical first: it runs over whole source rows, a contiguous loop the optimiser vectorises.
                        sums.update(repeating: 0)
                        rows.forEach(y) { row, weight in
                            let line = source.baseAddress! + row * rowSamples
                            if channels == 4 {
                                accumulatePremultiplied(line, into: sums, pixels: image.width, weight: weight)
                            } else {
                                for i in 0..<rowSamples { sums[i] += weight * Float(line[i]) }
                            }
                        }
                        let outRow = out.baseAddress! + y * targetWidth * channels
                        if channels == 4 {
                            averageRowRGBA(sums, columns, into: outRow, width: targetWidth)
                        } else {
                            averageRowRGB(sums, columns, into: outRow, width: targetWidth)
                        }
                    }
                }
            }
            count = out.count
        }
        return PixelBuffer(width: targetWidth, height: targetHeight, channels: channels, bytes: output)
    }

    /// Adds `weight` times the row with colours multiplied by alpha (so 0...255 * 255).
    private static func accumulatePremultiplied(
        _ line: UnsafePointer<UInt8>, into sums: UnsafeMutableBufferPointer<Float>, pixels: Int, weight: Float
    ) {
        for p in 0..<pixels {
            let alpha = weight * Float(line[p * 4 + 3])
            sums[p * 4] += alpha * Float(line[p * 4])
            sums[p * 4 + 1] += alpha * Float(line[p * 4 + 1])
            sums[p * 4 + 2] += alpha * Float(line[p * 4 + 2])
            sums[p * 4 + 3] += alpha
        }
    }

    private static func averageRowRGB(
        _ sums: UnsafeMutableBufferPointer<Float>, _ columns: BoxWeights, into out: UnsafeMutablePointer<UInt8>, width: Int
    ) {
        for x in 0..<width {
            var (r, g, b): (Float, Float, Float) = (0, 0, 0)
            columns.forEach(x) { column, weight in
                r += weight * sums[column * 3]
                g += weight * sums[column * 3 + 1]
                b += weight * sums[column * 3 + 2]
            }
            out[x * 3] = byte(r)
            out[x * 3 + 1] = byte(g)
            out[x * 3 + 2] = byte(b)
        }
    }

    private static func averageRowRGBA(
        _ sums: UnsafeMutableBufferPointer<Float>, _ columns: BoxWeights, into out: UnsafeMutablePointer<UInt8>, width: Int
    ) {
        for x in 0..<width {
            var (r, g, b, a): (Float, Float, Float, Float) = (0, 0, 0, 0)
            columns.forEach(x) { column, weight in
                r += weight * sums[column * 4]
                g += weight * sums[column * 4 + 1]
                b += weight * sums[column * 4 + 2]
                a += weight * sums[column * 4 + 3]
            }
            // Colours were weighted by alpha; dividing by the summed alpha gives the alpha-weighted mean.
            let unpremultiply: Float = a > 0 ? 1 / a : 0
            out[x * 4] = byte(r * unpremultiply)
            out[x * 4 + 1] = byte(g * unpremultiply)
            out[x * 4 + 2] = byte(b * unpremultiply)
            out[x * 4 + 3] = byte(a)
        }
    }

    /// Rounds a non-negative average to a byte.
    @inline(__always)
    private static func byte(_ value: Float) -> UInt8 {
        UInt8(min(value + 0.5, 255))
    }
}

/// For each target index, the source indices it covers and the share of each, summing to 1.
struct BoxWeights {
    private var firstSource: [Int] = []
    private var offsets: [Int] = [0]
    private var weights: [Float] = []

    /// Target pixel t covers [t * source, (t + 1) * source) and source pixel s covers
    /// [s * target, (s + 1) * target) in units of 1 / (source * target): overlaps are exact integers.
    init(source: Int, target: Int) {
        for t in 0..<target {
            let start = t * source, end = (t + 1) * source
            let first = start / target
            firstSource.append(first)
            var s = first
            while s * target < end {
                let overlap = min(end, (s + 1) * target) - max(start, s * target)
                weights.append(Float(overlap) / Float(source))
                s += 1
            }
            offsets.append(weights.count)
        }
    }

    /// Calls `body` with each (source index, weight) of target index `t`.
    @inline(__always)
    func forEach(_ t: Int, _ body: (Int, Float) -> Void) {
        let first = firstSource[t], start = offsets[t]
        for k in start..<offsets[t + 1] {
            body(first + k - start, weights[k])
        }
    }
}
