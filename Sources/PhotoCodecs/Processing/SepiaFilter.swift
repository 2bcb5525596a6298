/// Sepia tone as defined by CSS/SVG `sepia(amount)`, applied to RGB and leaving alpha untouched.
public struct SepiaFilter: Sendable {
    /// How far from the original toward full sepia: 0 is identity, 1 the classic sepia matrix; clamped to 0...1.
    /// 0.8 matches Core Image's CISepiaTone default, which the ClassicPhotos tutorial used.
    public var intensity: Double

    /// A filter of the given `intensity`.
    public init(intensity: Double = 0.8) {
        self.intensity = intensity
    }

    /// The row-major 3x3 matrix applied to (R, G, B): output row i is `matrix[i]` dotted with the input.
    public var matrix: [[Double]] {
        // W3C Filter Effects Module Level 1, sepia() equivalent (https://www.w3.org/TR/filter-effects-1/#sepiaEquivalent):
        // identity at amount 0, the classic sepia matrix [0.393 0.769 0.189; 0.349 0.686 0.168; 0.272 0.534 0.131]
        // at amount 1; amounts over 1 are clamped to 1.
        let rest = 1 - min(max(intensity, 0), 1)
        return [
            [0.393 + 0.607 * rest, 0.769 - 0.769 * rest, 0.189 - 0.189 * rest],
            [0.349 - 0.349 * rest, 0.686 + 0.314 * rest, 0.168 - 0.168 * rest],
            [0.272 - 0.272 * rest, 0.534 - 0.534 * rest, 0.131 + 0.869 * rest],
        ]
    }

    /// Tones `image` in place: each channel is the matrix row times (R, G, B), rounded and clamped to 0...255.
    public func apply(to image: inout PixelBuffer) {
        // 16 fractional bits: products stay within UInt32 (255 * 1.351 * 65536 < 2^25) and the result is
        // within 0.006 of the exact value before rounding.
        let fixed = matrix.joined().map { UInt32(($0 * 65536).rounded()) }
        let coefficients = Coefficients(fixed)
        let pixels = image.width * image.height
        image.bytes.withUnsafeMutableBufferPointer { buffer in
            // Literal strides let the optimiser specialise each loop for its interleaving.
            if image.channels == 4 {
                tone(buffer.baseAddress!, pixels: pixels, stride: 4, coefficients)
            } else {
                tone(buffer.baseAddress!, pixels: pixels, stride: 3, coefficients)
            }
        }
    }

    /// The nine fixed-point coefficients as separate values, so they stay in registers in the loop.
    private struct Coefficients {
        let rr, rg, rb, gr, gg, gb, br, bg, bb: UInt32

        init(_ m: [UInt32]) {
            (rr, rg, rb) = (m[0], m[1], m[2])
            (gr, gg, gb) = (m[3], m[4], m[5])
            (br, bg, bb) = (m[6], m[7], m[8])
        }
    }

    @inline(__always)
    private func tone(_ p: UnsafeMutablePointer<UInt8>, pixels: Int, stride: Int, _ c: Coefficients) {
        let half: UInt32 = 1 << 15
        for i in 0..<pixels {
            let o = i &* stride
            let r = UInt32(p[o]), g = UInt32(p[o &+ 1]), b = UInt32(p[o &+ 2])
            // All coefficients are non-negative for amounts in 0...1, so only the top needs clamping.
            p[o] = UInt8(truncatingIfNeeded: min((c.rr &* r &+ c.rg &* g &+ c.rb &* b &+ half) >> 16, 255))
            p[o &+ 1] = UInt8(truncatingIfNeeded: min((c.gr &* r &+ c.gg &* g &+ c.gb &* b &+ half) >> 16, 255))
            p[o &+ 2] = UInt8(truncatingIfNeeded: min((c.br &* r &+ c.bg &* g &+ c.bb &* b &+ half) >> 16, 255))
        }
    }
}
