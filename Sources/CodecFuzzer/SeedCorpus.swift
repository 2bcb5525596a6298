import Foundation
import PhotoCodecs

/// The fuzzer's starting inputs, the shapes the tests use: a JPEG per Exif orientation in both byte
/// orders, a progressive JPEG (and its first half, as a preview of it arriving decodes it), PNGs with
/// and without alpha, a truncated JPEG, a bare Exif block, and a JPEG with an Exif thumbnail as cameras write it.
enum SeedCorpus {
    /// Writes the seeds as files into `directory`, creating it; runs on the calling thread.
    static func write(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let photo = SamplePhoto.make(seed: 7, width: 40, height: 24)
        let jpeg = try JPEGEncoder.encode(photo, quality: 60)
        let progressive = try JPEGEncoder.encode(SamplePhoto.make(seed: 9, width: 96, height: 64), quality: 60, progressive: true)
        let thumbnail = try JPEGEncoder.encode(SamplePhoto.make(seed: 7, width: 10, height: 6), quality: 50)
        var seeds: [String: Data] = [
            "progressive-arriving.jpg": progressive.prefix(progressive.count / 2),
            "exif-thumbnail.jpg": SamplePhoto.withEXIFThumbnail(jpeg, thumbnail: thumbnail),
            "plain.jpg": jpeg,
            "progressive.jpg": try JPEGEncoder.encode(photo, quality: 60, progressive: true),
            "rgb.png": try PNGEncoder.encode(photo),
            "rgba.png": try PNGEncoder.encode(SamplePhoto.make(seed: 8, width: 16, height: 12, alpha: true)),
            "truncated.jpg": jpeg.prefix(jpeg.count / 2),
            "exif-block.bin": Data(SamplePhoto.exifBlock(orientation: 6, bigEndian: false)),
        ]
        for orientation in 1...8 {
            for bigEndian in [true, false] {
                let name = "orientation-\(orientation)-\(bigEndian ? "mm" : "ii").jpg"
                seeds[name] = SamplePhoto.tagged(jpeg, orientation: orientation, bigEndian: bigEndian)
            }
        }
        for (name, data) in seeds {
            try data.write(to: directory.appendingPathComponent(name))
        }
        print("wrote \(seeds.count) seeds to \(directory.path)")
    }
}
