import CJPEG
import Foundation
import PhotoCodecs
import TestOrigin

/// Hand-written PNG files, so tests can produce every colour type, bit depth and interlacing
/// (libpng's simplified write API only writes 8-bit RGB(A) and gray, never interlaced).
enum PNGFixture {
    /// Adam7 passes: x start, y start, x step, y step.
    private static let adam7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]

    /// A PNG whose pixel (x, y) has the samples `pixel(x, y)` (in the bit depth's range, one per channel).
    static func make(
        width: Int, height: Int, colorType: UInt8, bitDepth: UInt8, interlaced: Bool = false,
        palette: [[UInt8]] = [], transparency: [UInt8] = [], pixel: (Int, Int) -> [Int]
    ) -> Data {
        var raw: [UInt8] = []
        let passes = interlaced ? adam7 : [(0, 0, 1, 1)]
        for (x0, y0, dx, dy) in passes {
            let xs = Array(stride(from: x0, to: width, by: dx)), ys = Array(stride(from: y0, to: height, by: dy))
            guard !xs.isEmpty else { continue }
            for y in ys {
                raw.append(0)  // filter type None
                raw += pack(xs.map { pixel($0, y) }, bitDepth: Int(bitDepth))
            }
        }
        var ihdr = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        ihdr += [bitDepth, colorType, 0, 0, interlaced ? 1 : 0]
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        file += chunk("IHDR", ihdr)
        if !palette.isEmpty { file += chunk("PLTE", palette.flatMap { $0 }) }
        if !transparency.isEmpty { file += chunk("tRNS", transparency) }
        file += chunk("IDAT", zlibStored(raw))
        file += chunk("IEND", [])
        return Data(file)
    }

    /// A chunk with its length and CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// Samples packed most significant bits first, rows padded to a byte; 16-bit samples big-endian.
    private static func pack(_ pixels: [[Int]], bitDepth: Int) -> [UInt8] {
        let samples = pixels.flatMap { $0 }
        if bitDepth == 16 { return samples.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
        if bitDepth == 8 { return samples.map { UInt8($0) } }
        var bytes: [UInt8] = []
        var current = 0, used = 0
        for sample in samples {
            current = current << bitDepth | sample
            used += bitDepth
            if used == 8 { bytes.append(UInt8(current)); (current, used) = (0, 0) }
        }
        if used > 0 { bytes.append(UInt8(current << (8 - used))) }
        return bytes
    }

    /// A zlib stream of uncompressed (stored) deflate blocks: valid and simple.
    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            out.append(offset + length == data.count ? 1 : 0)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8 & 0xFF)]
            out += data[offset..<offset + length]
            offset += length
        } while offset < data.count
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in data { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        return out + bigEndian(b << 16 | a)
    }

    /// Offset of the first byte of the data of the first chunk of `type`.
    static func dataOffset(of type: String, in png: Data) -> Int? {
        var offset = 8
        let bytes = [UInt8](png)
        while offset + 8 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == type { return offset + 8 }
            offset += 12 + length
        }
        return nil
    }
}

/// JPEG fixtures the public encoder does not write (it only writes RGB), made with the same libjpeg.
enum JPEGFixture {
    /// Encodes `samples` (`components` per pixel) in `colorSpace`; CMYK gets libjpeg's Adobe marker.
    static func encode(
        _ samples: [UInt8], width: Int, height: Int, components: Int, colorSpace: J_COLOR_SPACE, quality: Int = 95
    ) throws -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var message = [CChar](repeating: 0, count: 200)
        let messageSize = message.count
        let status = samples.withUnsafeBufferPointer {
            cpl_jpeg_encode($0.baseAddress!, JDIMENSION(width), JDIMENSION(height), Int32(components), colorSpace,
                            Int32(quality), 0, &output, &size, &message, messageSize)
        }
        guard status == 0, let output else { throw FixtureError.encodeFailed }
        defer { free(output) }
        return Data(bytes: output, count: Int(size))
    }

    enum FixtureError: Error { case encodeFailed }

    /// Offset of the first marker `FF <code>` in `jpeg`.
    static func markerOffset(_ code: UInt8, in jpeg: Data) -> Int? {
        let bytes = [UInt8](jpeg)
        return bytes.indices.dropLast().first { bytes[$0] == 0xFF && bytes[$0 + 1] == code }
    }
}

/// A 1600x1067 JPEG (q85) of `SamplePhoto` seed 1, made once for the tests that need a photo-sized input,
/// on a thread of its own: a lazy global made it on one of the two threads of Swift concurrency, and
/// every other test that read it blocked another (under a CPU hog the whole process waited 24 s).
func photoSizedJPEG() async throws -> Data {
    try await madePhotoSizedJPEG.value
}

private let madePhotoSizedJPEG = Task {
    try await offThePool { () throws(ImageCodecError) in try JPEGEncoder.encode(SamplePhoto.make(seed: 1)) }
}

/// The W3C sepia() result before rounding, written out from the specification independently of SepiaFilter.
func w3cSepia(_ rgb: [Int], amount: Double) -> [Double] {
    let rest = 1 - min(max(amount, 0), 1)
    let matrix = [
        [0.393 + 0.607 * rest, 0.769 - 0.769 * rest, 0.189 - 0.189 * rest],
        [0.349 - 0.349 * rest, 0.686 + 0.314 * rest, 0.168 - 0.168 * rest],
        [0.272 - 0.272 * rest, 0.534 - 0.534 * rest, 0.131 + 0.869 * rest],
    ]
    return matrix.map { row in min(255, max(0, zip(row, rgb).map { $0 * Double($1) }.reduce(0, +))) }
}

/// Largest difference between two same-sized sample arrays.
func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
}

/// Mean absolute difference between two same-sized sample arrays.
///
/// A plain loop over the bytes: `zip`/`map`/`reduce` in a debug build took seconds per photo, on one of
/// the two threads every test shares (two such tests under a CPU hog held them 20 s and more, and every
/// other test's waits ran out meanwhile).
func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
    let count = min(a.count, b.count)
    let total = a.withUnsafeBufferPointer { a in
        b.withUnsafeBufferPointer { b in
            var total = 0
            for index in 0..<count { total &+= abs(Int(a[index]) - Int(b[index])) }
            return total
        }
    }
    return Double(total) / Double(max(1, a.count))
}

/// An image of one flat colour.
func solid(width: Int, height: Int, _ pixel: [UInt8]) -> PixelBuffer {
    // Doubling keeps this fast in debug builds, even at photo size.
    var bytes = pixel
    while bytes.count < width * height * pixel.count { bytes += bytes.prefix(width * height * pixel.count - bytes.count) }
    return PixelBuffer(width: width, height: height, channels: pixel.count, bytes: bytes)
}

/// A sample photo and its progressive and baseline JPEGs, for the suites that take a JPEG as its bytes
/// arrive. A suite makes them once on a thread of its own (`offThePool`) and each test awaits them, so
/// no thread of Swift concurrency waits on their making.
struct SampleJPEGs: Sendable {
    let photo: PixelBuffer
    let progressive: Data
    let baseline: Data

    init(seed: Int) {
        photo = SamplePhoto.make(seed: seed, width: 640, height: 427)
        progressive = try! JPEGEncoder.encode(photo, quality: 85, progressive: true)
        baseline = try! JPEGEncoder.encode(photo, quality: 85)
    }

    /// The JPEGs of the photo of `seed`, being made off the pool.
    static func made(seed: Int) -> Task<SampleJPEGs, Never> {
        Task { await offThePool { SampleJPEGs(seed: seed) } }
    }
}
