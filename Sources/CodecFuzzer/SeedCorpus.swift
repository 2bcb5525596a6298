import Foundation
import PhotoCodecs

/// The fuzzer's starting inputs, the shapes the tests use: a JPEG per Exif orientation in both byte
/// orders, a progressive JPEG, PNGs with and without alpha, a truncated JPEG and a bare Exif block.
enum SeedCorpus {
    /// Writes the seeds as files into `directory`, creating it; runs on the calling thread.
    static func write(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let photo = SamplePhoto.make(seed: 7, width: 40, height: 24)
        let jpeg = try JPEGEncoder.encode(photo, quality: 60)
        var seeds: [String: Data] = [
            "plain.jpg": jpeg,
            "progressive.jpg": try JPEGEncoder.encode(photo, quality: 60, progressive: true),
            "rgb.png": try PNGEncoder.encode(photo),
            "rgba.png": try PNGEncoder.encode(SamplePhoto.make(seed: 8, width: 16, height: 12, alpha: true)),
            "truncated.jpg": jpeg.prefix(jpeg.count / 2),
            "exif-block.bin": Data(exif(orientation: 6, bigEndian: false)),
        ]
        for orientation in 1...8 {
            for bigEndian in [true, false] {
                let name = "orientation-\(orientation)-\(bigEndian ? "mm" : "ii").jpg"
                seeds[name] = tagged(jpeg, with: exif(orientation: orientation, bigEndian: bigEndian))
            }
        }
        for (name, data) in seeds {
            try data.write(to: directory.appendingPathComponent(name))
        }
        print("wrote \(seeds.count) seeds to \(directory.path)")
    }

    /// `jpeg` with an APP1 marker holding `payload` right after SOI.
    private static func tagged(_ jpeg: Data, with payload: [UInt8]) -> Data {
        let length = payload.count + 2
        return jpeg.prefix(2) + Data([0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload) + jpeg.dropFirst(2)
    }

    /// "Exif\0\0" and a TIFF header whose IFD0 holds one SHORT orientation entry.
    private static func exif(orientation: Int, bigEndian: Bool) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] {
            bigEndian ? [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
        }
        func u32(_ value: Int) -> [UInt8] { bigEndian ? u16(value >> 16) + u16(value) : u16(value) + u16(value >> 16) }
        let order: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        let tiff = order + u16(42) + u32(8) + u16(1) + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0) + u32(0)
        return Array("Exif".utf8) + [0, 0] + tiff
    }
}
