import Foundation
import PhotoCodecs
import Testing

/// What a preview decode of the bytes arrived costs, and when later bytes can show no more (issue 41,
/// item 3): padding after a JPEG's end decoded again and again, an Exif thumbnail that declares a
/// photo's size decoded at full size on every attempt.
@Suite("Previews of a JPEG still arriving: their cost, and the end of the image")
struct ArrivedDecodeBoundsTests {
    static let photo = SamplePhoto.make(seed: 12, width: 640, height: 427)
    static let progressive = try! JPEGEncoder.encode(photo, quality: 85, progressive: true)
    static let baseline = try! JPEGEncoder.encode(photo, quality: 85)

    @Test(arguments: [true, false])
    func theEndOfTheImageIsReachedOnlyWhenItsLastBytesHaveArrived(progressive: Bool) throws {
        let jpeg = progressive ? Self.progressive : Self.baseline
        // Given the first half of a JPEG, and the whole JPEG followed by 64 KB of zeros
        let half = try SepiaRenderer().arrivedDecode(of: jpeg.prefix(jpeg.count / 2), height: 80)
        let padded = try SepiaRenderer().arrivedDecode(of: jpeg + Data(count: 64 * 1_024), height: 80)
        // Then only the whole one says that later bytes can show no more, and both say what they cost
        #expect(half.preview != nil && !half.isFinal)
        #expect(padded.preview != nil && padded.isFinal)
        #expect(half.declaredPixels == 640 * 427 && padded.declaredPixels == 640 * 427)
    }

    @Test func anExifThumbnailThatDeclaresAPhotosSizeIsNotDecoded() throws {
        // Given a camera JPEG whose Exif thumbnail declares 7000 x 7000 pixels in its frame header
        var thumbnail = try JPEGEncoder.encode(SamplePhoto.make(seed: 2, width: 160, height: 107), quality: 75)
        let frame = try #require(Self.frameHeader(in: thumbnail))
        thumbnail.replaceSubrange((frame + 5)..<(frame + 9), with: [0x1B, 0x58, 0x1B, 0x58])
        let camera = SamplePhoto.withEXIFThumbnail(Self.baseline, thumbnail: thumbnail)
        // When a little more than the Exif block has arrived
        let preview = try SepiaRenderer().arrivedPreview(of: camera.prefix(thumbnail.count + 2_000), height: 80)
        // Then the thumbnail is not shown (nor decoded: it is over the bound before any pixel)
        #expect(preview?.fromEXIFThumbnail != true)
        #expect(7_000 * 7_000 > SepiaRenderer.exifThumbnailMaxPixels)
    }

    @Test func aCameraSizedExifThumbnailStillShows() throws {
        let thumbnail = try JPEGEncoder.encode(SamplePhoto.make(seed: 2, width: 160, height: 107), quality: 75)
        let camera = SamplePhoto.withEXIFThumbnail(Self.baseline, thumbnail: thumbnail)
        let decode = try SepiaRenderer().arrivedDecode(of: camera.prefix(thumbnail.count + 2_000), height: 80)
        #expect(decode.preview?.fromEXIFThumbnail == true && decode.preview?.image.height == 80)
    }

    /// The offset of the first SOF0 or SOF2 marker (FF C0 / FF C2) of `jpeg`.
    static func frameHeader(in jpeg: Data) -> Int? {
        let bytes = Array(jpeg)
        return bytes.indices.dropLast().first { bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xC0 || bytes[$0 + 1] == 0xC2) }
    }
}
