import Foundation
import PhotoCodecs
import TestOrigin
import Testing

/// What a preview decode of the bytes arrived costs, and when later bytes can show no more (issue 41,
/// item 3): padding after a JPEG's end decoded again and again, an Exif thumbnail of a photo's size
/// decoded at full size on every attempt.
@Suite("Previews of a JPEG still arriving: their cost, and the end of the image")
struct ArrivedDecodeBoundsTests {
    static let jpegs = SampleJPEGs.made(seed: 12)

    @Test(arguments: [true, false])
    func theEndOfTheImageIsReachedOnlyWhenItsLastBytesHaveArrived(progressive: Bool) async throws {
        let jpegs = await Self.jpegs.value
        let jpeg = progressive ? jpegs.progressive : jpegs.baseline
        // Given the first half of a JPEG, and the whole JPEG followed by 64 KB of zeros
        let half = try SepiaRenderer().arrivedDecode(of: jpeg.prefix(jpeg.count / 2), height: 80)
        let padded = try SepiaRenderer().arrivedDecode(of: jpeg + Data(count: 64 * 1_024), height: 80)
        // Then only the whole one says that later bytes can show no more, and both say what they cost
        #expect(half.preview != nil && !half.isFinal)
        #expect(padded.preview != nil && padded.isFinal)
        #expect(half.declaredPixels == 640 * 427 && padded.declaredPixels == 640 * 427)
    }

    @Test func anExifThumbnailThatDeclaresAPhotosSizeIsNotDecoded() async throws {
        let jpegs = await Self.jpegs.value
        // Given a camera JPEG whose Exif thumbnail is a flat 1600 x 1600 image (small enough for an
        // Exif block, as a hostile one is, and 2.6 megapixels to decode at full size)
        let flat = PixelBuffer(width: 1_600, height: 1_600, channels: 3, bytes: [UInt8](repeating: 128, count: 1_600 * 1_600 * 3))
        let thumbnail = try JPEGEncoder.encode(flat, quality: 50)
        try #require(thumbnail.count < 60_000)
        let camera = SamplePhoto.withEXIFThumbnail(jpegs.baseline, thumbnail: thumbnail)
        // When a little more than the Exif block has arrived
        let preview = try SepiaRenderer().arrivedPreview(of: camera.prefix(thumbnail.count + 2_000), height: 80)
        // Then the thumbnail is not shown (nor decoded: it is over the bound before any pixel)
        #expect(preview?.fromEXIFThumbnail != true)
        #expect(1_600 * 1_600 > SepiaRenderer.exifThumbnailMaxPixels)
    }

    @Test func aCameraSizedExifThumbnailStillShows() async throws {
        let jpegs = await Self.jpegs.value
        let thumbnail = try JPEGEncoder.encode(SamplePhoto.make(seed: 2, width: 160, height: 107), quality: 75)
        let camera = SamplePhoto.withEXIFThumbnail(jpegs.baseline, thumbnail: thumbnail)
        let decode = try SepiaRenderer().arrivedDecode(of: camera.prefix(thumbnail.count + 2_000), height: 80)
        #expect(decode.preview?.fromEXIFThumbnail == true && decode.preview?.image.height == 80)
    }
}
