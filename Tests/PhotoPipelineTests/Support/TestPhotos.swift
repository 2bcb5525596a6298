import Foundation
import Locking
import PhotoCodecs

/// Generated image bytes for the tests: nothing is downloaded from outside.
enum TestPhotos {
    /// A photo-like JPEG, made once per seed and size: a photo-sized one takes a debug build long
    /// enough on a loaded machine to stall the other tests on Swift concurrency's two threads, and
    /// suites ask for the same few again and again. (Made outside the lock: a second test asking at
    /// once makes it too rather than block a second thread of the pool on the lock.)
    static func jpeg(seed: Int = 1, width: Int = 640, height: Int = 427) -> [UInt8] {
        let key = JPEGKey(seed: seed, width: width, height: height)
        if let made = madeJPEGs.withLock({ $0[key] }) { return made }
        let bytes = Array(try! JPEGEncoder.encode(SamplePhoto.make(seed: seed, width: width, height: height), quality: 85))
        madeJPEGs.withLock { $0[key] = bytes }
        return bytes
    }

    private struct JPEGKey: Hashable {
        let seed: Int, width: Int, height: Int
    }

    private static let madeJPEGs = Locked<[JPEGKey: [UInt8]]>([:])

    /// A PNG of one colour, lossless, so filtered pixels can be checked against the sepia matrix.
    static func solidPNG(red: UInt8, green: UInt8, blue: UInt8, width: Int = 96, height: Int = 64) -> [UInt8] {
        let pixels = (0..<(width * height)).flatMap { _ in [red, green, blue] }
        return Array(try! PNGEncoder.encode(PixelBuffer(width: width, height: height, channels: 3, bytes: pixels)))
    }

    /// A JPEG cut off half-way.
    static func truncatedJPEG() -> [UInt8] {
        let whole = jpeg(seed: 2)
        return Array(whole.prefix(whole.count / 2))
    }

    /// A PNG whose compressed pixel data is damaged.
    static func corruptPNG() -> [UInt8] {
        var bytes = Array(try! PNGEncoder.encode(SamplePhoto.make(seed: 3, width: 64, height: 64)))
        for offset in stride(from: 60, to: min(bytes.count - 20, 200), by: 7) { bytes[offset] ^= 0x5A }
        return bytes
    }

    /// A real JPEG whose frame header claims 60000 x 60000 pixels.
    static func absurdJPEG() -> [UInt8] {
        var bytes = jpeg(seed: 4, width: 32, height: 32)
        for offset in 0..<(bytes.count - 9) where bytes[offset] == 0xFF && (bytes[offset + 1] == 0xC0 || bytes[offset + 1] == 0xC2) {
            bytes.replaceSubrange((offset + 5)...(offset + 8), with: [0xEA, 0x60, 0xEA, 0x60])
            break
        }
        return bytes
    }

    /// Bytes that are not an image at all.
    static let html = Array("<html><body>Not found</body></html>".utf8)
}
