import Foundation
import PhotoCodecs
import TestOrigin
import Testing

@Suite("Previews of a JPEG still arriving: progressive scans, baseline rows, the Exif thumbnail")
struct ArrivedDecodeTests {
    static let jpegs = SampleJPEGs.made(seed: 11)

    /// The mean absolute difference per sample between two images of one size.
    static func difference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        meanDifference(a.bytes, b.bytes)
    }

    @Test func aProgressiveJPEGShowsTheWholePhotoAfterItsFirstScanAndSharpensWithMore() async throws {
        let jpegs = await Self.jpegs.value
        let final = try JPEGDecoder.decode(jpegs.progressive, minimumHeight: 80)
        // Given the first fifth and the first two thirds of a progressive JPEG
        let early = try #require(try JPEGDecoder.decodeArrived(jpegs.progressive.prefix(jpegs.progressive.count / 5), minimumHeight: 80))
        let later = try #require(try JPEGDecoder.decodeArrived(jpegs.progressive.prefix(jpegs.progressive.count * 2 / 3), minimumHeight: 80))
        // Then each shows every row of the photo, at the final size, closer to it with more scans
        let earlyImage = try #require(early.image)
        let laterImage = try #require(later.image)
        #expect(early.progressive && early.scans >= 1 && early.rowsReady == early.rowsTotal)
        #expect(later.scans > early.scans)
        #expect((earlyImage.width, earlyImage.height) == (final.width, final.height))
        #expect(Self.difference(laterImage, final) < Self.difference(earlyImage, final))
        #expect(Self.difference(earlyImage, final) < 20)
    }

    @Test func aBaselineJPEGShowsTheRowsArrivedAndGreyBelow() async throws {
        let jpegs = await Self.jpegs.value
        let final = try JPEGDecoder.decode(jpegs.baseline, minimumHeight: 80)
        let arrived = try #require(try JPEGDecoder.decodeArrived(jpegs.baseline.prefix(jpegs.baseline.count / 2), minimumHeight: 80))
        let image = try #require(arrived.image)
        #expect(!arrived.progressive && arrived.scans == 1)
        #expect(arrived.rowsReady > 0 && arrived.rowsReady < arrived.rowsTotal)
        // The rows arrived are the photo's; the last row is still the grey fill
        let row = image.width * 3
        let top = PixelBuffer(width: image.width, height: 8, channels: 3, bytes: Array(image.bytes[0..<(8 * row)]))
        let finalTop = PixelBuffer(width: final.width, height: 8, channels: 3, bytes: Array(final.bytes[0..<(8 * row)]))
        #expect(Self.difference(top, finalTop) < 2)
        #expect(image.bytes.suffix(row).allSatisfy { $0 == 128 })
    }

    @Test func nothingIsShownBeforeTheHeaderOrTheFirstScanHasArrived() async throws {
        let jpegs = await Self.jpegs.value
        #expect(try JPEGDecoder.decodeArrived(jpegs.progressive.prefix(40), minimumHeight: 80) == nil)
        let headerOnly = try JPEGDecoder.decodeArrived(jpegs.progressive.prefix(700), minimumHeight: 80)
        #expect(headerOnly == nil || headerOnly?.image == nil)
        #expect(try SepiaRenderer().arrivedPreview(of: jpegs.progressive.prefix(40), height: 80) == nil)
    }

    @Test func aCameraJPEGShowsItsExifThumbnailUntilItsRowsHaveAllArrived() async throws {
        let jpegs = await Self.jpegs.value
        // Given a baseline JPEG with a thumbnail in its Exif block, as a camera writes it
        let thumbnail = try JPEGEncoder.encode(Resampler.scaled(jpegs.photo, toHeight: 107), quality: 75)
        let camera = SamplePhoto.withEXIFThumbnail(jpegs.baseline, thumbnail: thumbnail)
        #expect(EXIFReader.thumbnail(inAPP1: camera.dropFirst(6).prefix(6 + 56 + thumbnail.count)) == Array(thumbnail))
        // When a little more than the Exif block has arrived
        let preview = try #require(try SepiaRenderer().arrivedPreview(of: camera.prefix(thumbnail.count + 2_000), height: 80))
        // Then the whole photo shows, from the thumbnail
        #expect(preview.fromEXIFThumbnail && preview.rowsShown == 1 && preview.image.height == 80)
        // And a thumbnail whose offsets point outside its block is not read
        var broken = Array(camera.dropFirst(6).prefix(6 + 56 + thumbnail.count))
        broken[6 + 26 + 2 + 8 + 3] = 0xFF
        #expect(EXIFReader.thumbnail(inAPP1: broken) == nil)
    }

    @Test func aCorruptPrefixFailsOrShowsNothingAndNeverCrashes() async {
        let jpegs = await Self.jpegs.value
        var damaged = Array(jpegs.progressive.prefix(jpegs.progressive.count / 2))
        for offset in stride(from: 600, to: damaged.count, by: 97) { damaged[offset] ^= 0x5A }
        for cut in stride(from: 0, to: damaged.count, by: max(1, damaged.count / 40)) {
            _ = try? SepiaRenderer().arrivedPreview(of: Data(damaged.prefix(cut)), height: 40)
        }
    }
}
