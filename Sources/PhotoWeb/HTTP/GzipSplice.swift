import CompressNIO
import NIOCore

/// A constant stretch of a page compressed once: raw deflate ended with a sync flush (byte-aligned,
/// not final), so any number of them, stored blocks between them, and an empty final block make
/// one deflate stream. Each is compressed on its own (no back-reference reaches outside it), which
/// is what lets the bytes between them change per load.
struct DeflatedPart: Sendable {
    let deflated: ByteBuffer
    /// CRC-32 of the uncompressed bytes.
    let checksum: UInt32
    /// How many uncompressed bytes.
    let count: Int
    /// x^(8 * count) mod the CRC's polynomial: moves the checksum of what comes before past this part.
    let shift: UInt32

    init(_ text: String) throws(APIError) {
        var input = ByteBuffer(string: text)
        count = input.readableBytes
        checksum = CRC32.checksum(input.readableBytesView)
        shift = CRC32.shift(count)
        guard count > 0 else {
            deflated = ByteBuffer()
            return
        }
        do {
            let compressor = try ZlibCompressor(algorithm: .deflate)
            var output = ByteBufferAllocator().buffer(capacity: compressor.maxSize(from: input))
            try compressor.deflate(from: &input, to: &output, flush: .sync)
            guard input.readableBytes == 0 else { throw CompressNIOError.bufferOverflow }
            deflated = output
        } catch {
            throw .internal("could not compress a part of the page: \(error)")
        }
    }
}

/// A gzip member put together from parts compressed ahead of time (`DeflatedPart`) and short text
/// sent as stored blocks (a viewer's id): no compressing per answer, only copying and a CRC-32
/// over the stored text (the parts' checksums are combined, not recomputed).
struct GzipSplice {
    private(set) var buffer: ByteBuffer
    private var checksum: UInt32 = 0
    private var count = 0
    /// The gzip header: deflate, no name or time, Unix.
    private static let header: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]

    init(capacity: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity + Self.header.count + 8 + 2)
        buffer.writeBytes(Self.header)
    }

    mutating func append(_ part: DeflatedPart) {
        guard part.count > 0 else { return }
        buffer.writeImmutableBuffer(part.deflated)
        checksum = CRC32.multiply(part.shift, checksum) ^ part.checksum
        count += part.count
    }

    /// `text` as stored blocks (at most 65,535 bytes each).
    mutating func appendStored(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            checksum = CRC32.checksum(bytes, continuing: checksum)
            count += bytes.count
            for start in stride(from: 0, to: bytes.count, by: 65_535) {
                let block = UnsafeBufferPointer(rebasing: bytes[start..<min(bytes.count, start + 65_535)])
                let length = UInt16(block.count)
                buffer.writeInteger(UInt8(0))
                buffer.writeInteger(length, endianness: .little)
                buffer.writeInteger(~length, endianness: .little)
                buffer.writeBytes(block)
            }
        }
    }

    /// How many bytes the member decompresses to.
    var uncompressedCount: Int { count }

    /// The member: an empty final block (fixed Huffman, its end code alone) and the trailer.
    consuming func finish() -> ByteBuffer {
        buffer.writeBytes([0x03, 0x00])
        buffer.writeInteger(checksum, endianness: .little)
        buffer.writeInteger(UInt32(truncatingIfNeeded: count), endianness: .little)
        return buffer
    }
}

/// CRC-32 (gzip's, reflected 0xEDB88320), with zlib's way of combining checksums of consecutive parts.
enum CRC32 {
    private static let polynomial: UInt32 = 0xEDB8_8320
    private static let table: [UInt32] = (0..<256).map { byte in
        var value = UInt32(byte)
        for _ in 0..<8 { value = value & 1 != 0 ? polynomial ^ (value >> 1) : value >> 1 }
        return value
    }
    /// x^(2^n) mod p, for n in 0..<32 (zlib's `x2n_table`).
    private static let powers: [UInt32] = {
        var power: UInt32 = 1 << 30
        var powers = [power]
        for _ in 1..<32 {
            power = multiply(power, power)
            powers.append(power)
        }
        return powers
    }()

    /// The checksum of `bytes` following bytes whose checksum is `crc`.
    static func checksum(_ bytes: some Sequence<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
        var value = ~crc
        for byte in bytes { value = table[Int((value ^ UInt32(byte)) & 0xFF)] ^ (value >> 8) }
        return ~value
    }

    /// a(x) b(x) mod p(x), in the reflected order (zlib's `multmodp`).
    static func multiply(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var (mask, product, b) = (UInt32(1) << 31, UInt32(0), b)
        while mask != 0 {
            if a & mask != 0 {
                product ^= b
                if a & (mask - 1) == 0 { break }
            }
            mask >>= 1
            b = b & 1 != 0 ? (b >> 1) ^ polynomial : b >> 1
        }
        return product
    }

    /// x^(8 * bytes) mod p (zlib's `x2nmodp(bytes, 3)`).
    static func shift(_ bytes: Int) -> UInt32 {
        var (power, n, k) = (UInt32(1) << 31, bytes, 3)
        while n != 0 {
            if n & 1 != 0 { power = multiply(powers[k & 31], power) }
            n >>= 1
            k += 1
        }
        return power
    }

    /// The checksum of two parts one after the other (zlib's `crc32_combine`).
    static func combine(_ first: UInt32, _ second: UInt32, secondCount: Int) -> UInt32 {
        multiply(shift(secondCount), first) ^ second
    }
}
