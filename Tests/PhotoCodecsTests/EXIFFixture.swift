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
        return SamplePhoto.tagged(jpeg, orientation: orientation, bigEndian: bigEndian)
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
