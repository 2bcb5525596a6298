/// Deterministic photo-like test images: a sky gradient with a sun over ground, a few shaded shapes,
/// soft texture and grain. Colourful so a sepia tone shows; the same seed always gives the same pixels
/// (integer maths and correctly rounded square roots only).
public enum SamplePhoto {
    /// An image of `width` x `height` for `seed`, RGB or, with `alpha`, RGBA with an opaque centre
    /// fading to transparent corners.
    public static func make(seed: Int, width: Int = 1600, height: Int = 1067, alpha: Bool = false) -> PixelBuffer {
        var random = SplitMix64(seed: UInt64(bitPattern: Int64(seed)))
        let scene = Scene(width: width, height: height, random: &random)
        let texture = ValueNoise(width: width, height: height, amplitude: 18, random: &random)
        let channels = alpha ? 4 : 3
        // Rows are built as R, G and B planes plus a shared lightness row, so the per-pixel work is plain
        // contiguous loops; unsafe buffers keep bounds checks out of them.
        let planes = UnsafeMutableBufferPointer<Int32>.allocate(capacity: width * 3)
        let light = UnsafeMutableBufferPointer<Int32>.allocate(capacity: width)
        // Sensor-like luminance grain read from a random offset in a tile, rather than generated per pixel.
        let grain = UnsafeMutableBufferPointer<Int32>.allocate(capacity: grainOffsets + width)
        defer {
            planes.deallocate()
            light.deallocate()
            grain.deallocate()
        }
        for i in grain.indices { grain[i] = Int32(random.int(in: -8...7)) }
        let bytes = [UInt8](unsafeUninitializedCapacity: width * height * channels) { out, count in
            for y in 0..<height {
                scene.paint(row: y, into: planes)
                texture.fill(row: y, into: light)
                scene.addSideLight(to: light)
                let noise = grain.baseAddress! + random.int(in: 0...grainOffsets - 1)
                for x in 0..<width { light[x] &+= noise[x] }
                for c in 0..<3 {
                    let plane = planes.baseAddress! + c * width
                    for x in 0..<width { plane[x] = min(max(plane[x] &+ light[x], 0), 255) }
                }
                let line = out.baseAddress! + y * width * channels
                if alpha {
                    for x in 0..<width {
                        for c in 0..<3 { line[x * 4 + c] = UInt8(truncatingIfNeeded: planes[c * width + x]) }
                        line[x * 4 + 3] = vignetteAlpha(x: x, y: y, width: width, height: height)
                    }
                } else {
                    for x in 0..<width {
                        line[x * 3] = UInt8(truncatingIfNeeded: planes[x])
                        line[x * 3 + 1] = UInt8(truncatingIfNeeded: planes[width + x])
                        line[x * 3 + 2] = UInt8(truncatingIfNeeded: planes[2 * width + x])
                    }
                }
            }
            count = out.count
        }
        return PixelBuffer(width: width, height: height, channels: channels, bytes: bytes)
    }

    /// How many different starting points rows take in the grain tile.
    private static let grainOffsets = 4096

    /// 255 inside 80% of the inscribed ellipse, falling to 0 at its edge and beyond.
    private static func vignetteAlpha(x: Int, y: Int, width: Int, height: Int) -> UInt8 {
        let dx = (Double(x) + 0.5) / Double(width) * 2 - 1
        let dy = (Double(y) + 0.5) / Double(height) * 2 - 1
        let distance = (dx * dx + dy * dy).squareRoot()
        return UInt8(min(max((1 - distance) / 0.2 * 255, 0), 255).rounded())
    }
}

/// The flat-shaded parts of a sample photo, laid out from the seed.
private struct Scene {
    struct Shape {
        var isEllipse: Bool
        var x0, y0, x1, y1: Int
        var colour: SIMD3<Int32>
    }

    let width: Int, horizon: Int, height: Int
    let skyTop: SIMD3<Int32>, skyBottom: SIMD3<Int32>, groundTop: SIMD3<Int32>, groundBottom: SIMD3<Int32>
    /// The sun, then the shapes in front of it.
    let layers: [Shape]
    /// Light from one side: a brightness ramp across the columns.
    private let ramp: [Int32]

    init(width: Int, height: Int, random: inout SplitMix64) {
        self.width = width
        self.height = height
        horizon = height * random.int(in: 45...65) / 100
        skyTop = hue(random.int(in: 200...250), saturation: random.int(in: 150...230), value: random.int(in: 150...220))
        skyBottom = hue(random.int(in: 15...50), saturation: random.int(in: 60...140), value: 250)
        groundTop = hue(random.int(in: 70...130), saturation: random.int(in: 120...220), value: random.int(in: 120...180))
        groundBottom = hue(random.int(in: 20...45), saturation: random.int(in: 120...200), value: random.int(in: 50...100))
        let radius = max(1, height * random.int(in: 4...8) / 100)
        let sunX = random.int(in: 0...max(0, width - 1)), sunY = random.int(in: 0...max(0, horizon - radius))
        let sun = Shape(isEllipse: true, x0: sunX - radius, y0: sunY - radius, x1: sunX + radius, y1: sunY + radius,
                    colour: hue(random.int(in: 35...55), saturation: 90, value: 255))
        layers = [sun] + (0..<random.int(in: 3...6)).map { _ in
            let w = max(1, width * random.int(in: 8...30) / 100), h = max(1, height * random.int(in: 10...40) / 100)
            let x0 = random.int(in: -w / 2...max(0, width - w / 2))
            let y0 = random.int(in: min(height - 1, height * 3 / 10)...max(0, height - h / 2))
            return Shape(isEllipse: random.int(in: 0...1) == 0, x0: x0, y0: y0, x1: x0 + w, y1: y0 + h,
                         colour: hue(random.int(in: 0...359), saturation: random.int(in: 160...255),
                                     value: random.int(in: 140...255)))
        }
        let slope = Int32(random.int(in: -30...30))
        ramp = (0..<width).map { Int32($0) * slope / Int32(max(1, width)) - slope / 2 }
    }

    /// Writes row `y` as three planes, R then G then B, of `width` values each.
    func paint(row y: Int, into planes: UnsafeMutableBufferPointer<Int32>) {
        let base = y < horizon
            ? mix(skyTop, skyBottom, y, max(1, horizon))
            : mix(groundTop, groundBottom, y - horizon, max(1, height - horizon))
        fill(planes, 0..<width, with: base)
        for shape in layers where (shape.y0..<shape.y1).contains(y) {
            // Shaded darker toward the bottom, as if lit from above.
            let shaded = mix(shape.colour, shape.colour &* 6 / 10, y - shape.y0, shape.y1 - shape.y0)
            let (from, to) = span(of: shape, at: y)
            fill(planes, max(0, from)..<max(max(0, from), min(width, to)), with: shaded)
        }
    }

    /// Adds the brightness ramp to a row of lightness.
    func addSideLight(to light: UnsafeMutableBufferPointer<Int32>) {
        ramp.withUnsafeBufferPointer { ramp in
            for x in 0..<width { light[x] &+= ramp[x] }
        }
    }

    private func fill(_ planes: UnsafeMutableBufferPointer<Int32>, _ columns: Range<Int>, with colour: SIMD3<Int32>) {
        for c in 0..<3 {
            let plane = planes.baseAddress! + c * width
            for x in columns { plane[x] = colour[c] }
        }
    }

    /// The columns [from, to) the shape covers in row `y`.
    private func span(of shape: Shape, at y: Int) -> (Int, Int) {
        guard shape.isEllipse else { return (shape.x0, shape.x1) }
        let rx = Double(shape.x1 - shape.x0) / 2, ry = Double(shape.y1 - shape.y0) / 2
        let dy = (Double(y - shape.y0) + 0.5 - ry) / ry
        let half = Int((rx * max(0, 1 - dy * dy).squareRoot()).rounded())
        let centre = (shape.x0 + shape.x1) / 2
        return (centre - half, centre + half)
    }
}

/// Smooth random variation: bilinear interpolation of random values on a grid of 64 px cells.
private struct ValueNoise {
    /// A power of two, so the interpolation divides by shifting.
    static let cellShift = 6
    let columns: Int
    let grid: [Int32]

    init(width: Int, height: Int, amplitude: Int, random: inout SplitMix64) {
        columns = (width >> Self.cellShift) + 2
        let rows = (height >> Self.cellShift) + 2
        grid = (0..<columns * rows).map { _ in Int32(random.int(in: -amplitude...amplitude)) }
    }

    /// Writes the texture of row `y` into `out`, one value per column.
    func fill(row y: Int, into out: UnsafeMutableBufferPointer<Int32>) {
        let cell = Int32(1) << Self.cellShift
        let gy = y >> Self.cellShift, fy = Int32(y) & (cell - 1)
        var x = 0
        for gx in 0..<columns - 1 where x < out.count {
            let top = gy * columns + gx, bottom = top + columns
            let left = grid[top] &* (cell - fy) &+ grid[bottom] &* fy
            let right = grid[top + 1] &* (cell - fy) &+ grid[bottom + 1] &* fy
            let run = min(Int(cell), out.count - x)
            for fx in 0..<Int32(run) {
                out[x + Int(fx)] = (left &* (cell - fx) &+ right &* fx) >> (2 * Self.cellShift)
            }
            x += run
        }
    }
}

/// `a` moved `step` of `steps` of the way to `b`.
private func mix(_ a: SIMD3<Int32>, _ b: SIMD3<Int32>, _ step: Int, _ steps: Int) -> SIMD3<Int32> {
    a &+ (b &- a) &* Int32(step) / Int32(max(1, steps))
}

/// An RGB colour from a hue in degrees and saturation and value in 0...255, in integers.
private func hue(_ degrees: Int, saturation: Int, value: Int) -> SIMD3<Int32> {
    let position = degrees % 360 * 1536 / 360
    let f = Int32(position % 256)
    let pure: SIMD3<Int32> = switch position / 256 {
    case 0: [255, f, 0]
    case 1: [255 - f, 255, 0]
    case 2: [0, 255, f]
    case 3: [0, 255 - f, 255]
    case 4: [f, 0, 255]
    default: [255, 0, 255 - f]
    }
    let s = Int32(saturation), v = Int32(value)
    return (SIMD3(repeating: 255 * (255 - s)) &+ pure &* s) &* v / (255 * 255)
}
