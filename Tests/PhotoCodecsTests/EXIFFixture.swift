import Foundation
import PhotoCodecs

/// JPEGs carrying an Exif APP1 block written by the tests, as a phone writes one.
enum EXIFFixture {
    /// A 48x32 JPEG of four flat quadrants (red, green / blue, white) tagged with `orientation`.
    static func quadrants(orientation: Int, bigEndian: Bool = true) throws -> Data {
        let width = 48, height = 32
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                bytes += Corner.at(left: x < width / 2, top: y < height / 2).rgb
            }
        }
        let jpeg = try JPEGEncoder.encode(PixelBuffer(width: width, height: height, channels: 3, bytes: bytes), quality: 95)
        return inserting(app1: exif(orientation: orientation, bigEndian: bigEndian), into: jpeg)
    }

    /// `jpeg` with an APP1 marker holding `payload` right after SOI.
    static func inserting(app1 payload: [UInt8], into jpeg: Data) -> Data {
        let length = payload.count + 2
        let marker: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return jpeg.prefix(2) + Data(marker) + jpeg.dropFirst(2)
    }

    /// "Exif\0\0" and a TIFF header whose IFD0 holds one SHORT orientation entry.
    static func exif(orientation: Int, bigEndian: Bool = true) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] {
            bigEndian ? [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
        }
        func u32(_ value: Int) -> [UInt8] { bigEndian ? u16(value >> 16) + u16(value) : u16(value) + u16(value >> 16) }
        let order: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        let tiff = order + u16(42) + u32(8) + u16(1) + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0) + u32(0)
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// The colour of each quadrant of the stored image.
    enum Corner: String, CustomStringConvertible {
        case red, green, blue, white

        static func at(left: Bool, top: Bool) -> Corner {
            switch (left, top) {
            case (true, true): .red
            case (false, true): .green
            case (true, false): .blue
            case (false, false): .white
            }
        }

        var rgb: [UInt8] {
            switch self {
            case .red: [220, 30, 30]
            case .green: [30, 200, 40]
            case .blue: [30, 40, 210]
            case .white: [240, 240, 240]
            }
        }

        /// The nearest corner colour to `pixel`.
        static func nearest(_ pixel: [UInt8]) -> Corner {
            [Corner.red, .green, .blue, .white].min { a, b in distance(a.rgb, pixel) < distance(b.rgb, pixel) }!
        }

        private static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
            zip(a, b).reduce(0) { $0 + (Int($1.0) - Int($1.1)) * (Int($1.0) - Int($1.1)) }
        }

        var description: String { rawValue }
    }
}
