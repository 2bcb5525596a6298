import Foundation
@testable import PhotoCodecs
import Testing

@Suite("EXIF orientation: read from APP1 and applied after the decode")
struct EXIFOrientationTests {
    typealias Corner = EXIFFixture.Corner

    /// For each orientation, the stored quadrants seen upright: top-left, top-right, bottom-left, bottom-right.
    static let upright: [(Int, [Corner])] = [
        (1, [.red, .green, .blue, .white]),
        (2, [.green, .red, .white, .blue]),
        (3, [.white, .blue, .green, .red]),
        (4, [.blue, .white, .red, .green]),
        (5, [.red, .blue, .green, .white]),
        (6, [.blue, .red, .white, .green]),
        (7, [.white, .green, .blue, .red]),
        (8, [.green, .white, .red, .blue]),
    ]

    @Test("each orientation comes out upright, pixel by quadrant", arguments: upright)
    func decodeIsUpright(orientation: Int, corners: [Corner]) throws {
        // Given
        let jpeg = try EXIFFixture.quadrants(orientation: orientation)

        // When
        let image = try JPEGDecoder.decode(jpeg)

        // Then
        let swapped = orientation >= 5
        #expect((image.width, image.height) == (swapped ? (32, 48) : (48, 32)))
        #expect(quadrants(of: image) == corners)
    }

    @Test("little-endian (Intel) Exif reads the same", arguments: [3, 6, 8])
    func littleEndian(orientation: Int) throws {
        let jpeg = try EXIFFixture.quadrants(orientation: orientation, bigEndian: false)
        let expected = try #require(Self.upright.first { $0.0 == orientation }).1
        #expect(quadrants(of: try JPEGDecoder.decode(jpeg)) == expected)
    }

    @Test("the reduced-scale decode picks its scale by the upright height")
    func reducedScaleUsesUprightHeight() async throws {
        // Given: stored 1600x1067 turned 90°, so upright 1067 wide and 1600 high
        let jpeg = SamplePhoto.tagged(try await photoSizedJPEG(), orientation: 6)

        // When
        let size = try JPEGDecoder.outputSize(of: jpeg, minimumHeight: 200)
        let image = try JPEGDecoder.decode(jpeg, minimumHeight: 200)

        // Then: 1/8 gives 200 upright pixels (the stored width); the stored height would have needed 2/8
        #expect(size.scaleNumerator == 1)
        #expect(size.orientation == .right)
        #expect((image.width, image.height) == (134, 200))
    }

    @Test("thumbnails, their unfiltered preview and the full-size sepia image are upright", arguments: [6, 8])
    func rendererIsUpright(orientation: Int) throws {
        // Given
        let jpeg = try EXIFFixture.quadrants(orientation: orientation)
        let renderer = SepiaRenderer()
        var preview: EncodedImage?

        // When
        let thumbnail = try renderer.thumbnail(of: jpeg, height: 24, unfiltered: { preview = $0 })
        let full = try renderer.fullSize(of: jpeg)

        // Then
        #expect((thumbnail.width, thumbnail.height) == (16, 24))
        #expect((preview?.width, preview?.height) == (16, 24))
        #expect((full.width, full.height) == (32, 48))
        let unfiltered = try JPEGDecoder.decode(try #require(preview).data)
        let expected = try #require(Self.upright.first { $0.0 == orientation }).1
        #expect(quadrants(of: unfiltered) == expected)
    }

    @Test("thumbnails(of:) gives the preview and the sepia thumbnail of one decode, same upright shape")
    func bothThumbnails() throws {
        // Given
        let jpeg = try EXIFFixture.quadrants(orientation: 8)

        // When
        let (preview, sepia) = try SepiaRenderer().thumbnails(of: jpeg, height: 24)

        // Then: the preview keeps the colours, the sepia one does not
        #expect((preview.width, preview.height, sepia.width, sepia.height) == (16, 24, 16, 24))
        #expect(quadrants(of: try JPEGDecoder.decode(preview.data)) == [.green, .white, .red, .blue])
        let sepiaTopLeft = try JPEGDecoder.decode(sepia.data)[4, 6]
        #expect(!(sepiaTopLeft[1] > sepiaTopLeft[0] + 50), "sepia top-left \(sepiaTopLeft) is still green")
    }

    @Test("a missing, foreign or out-of-range tag leaves the image as stored", arguments: [0, 9, 0xFFFF])
    func outOfRangeIsIgnored(orientation: Int) throws {
        let image = try JPEGDecoder.decode(try EXIFFixture.quadrants(orientation: orientation))
        #expect(quadrants(of: image) == [.red, .green, .blue, .white])
    }

    @Test("every truncation of an Exif block reads as no orientation, never a crash")
    func truncatedBlocks() {
        let block = SamplePhoto.exifBlock(orientation: 6)
        #expect(EXIFReader.orientation(inAPP1: block) == .right)
        for length in 0..<block.count - 2 {
            // The last 6 bytes are the value's padding and the next-IFD offset; shorter blocks lose the value.
            let read = EXIFReader.orientation(inAPP1: block.prefix(length))
            #expect(read == nil || length >= block.count - 6, "length \(length) read \(String(describing: read))")
        }
    }

    @Test("offsets and counts pointing outside the block are rejected")
    func hostileOffsets() {
        var block = SamplePhoto.exifBlock(orientation: 6)
        // IFD0 offset far past the end
        block[10...13] = [0x7F, 0xFF, 0xFF, 0xFF]
        #expect(EXIFReader.orientation(inAPP1: block) == nil)
        // An entry count of 65535 with one real entry: stops at the end of the bytes
        block = SamplePhoto.exifBlock(orientation: 6)
        block[14...15] = [0xFF, 0xFF]
        #expect(EXIFReader.orientation(inAPP1: block) == .right)
        block[16...17] = [0x01, 0x00]
        #expect(EXIFReader.orientation(inAPP1: block) == nil)
        // Wrong type (LONG instead of SHORT)
        block = SamplePhoto.exifBlock(orientation: 6)
        block[19] = 4
        #expect(EXIFReader.orientation(inAPP1: block) == nil)
    }

    /// The nearest corner colour at the centre of each upright quadrant.
    private func quadrants(of image: PixelBuffer) -> [Corner] {
        let xs = [image.width / 4, image.width * 3 / 4], ys = [image.height / 4, image.height * 3 / 4]
        return ys.flatMap { y in xs.map { x in Corner.nearest(Array(image[x, y].prefix(3))) } }
    }
}
