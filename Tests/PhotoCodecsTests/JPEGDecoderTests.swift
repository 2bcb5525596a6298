import CJPEG
import Foundation
import PhotoCodecs
import Testing

@Suite struct JPEGDecoderTests {
    private let photo = SamplePhoto.make(seed: 11, width: 320, height: 213)

    @Test func baselineRoundTrip() throws {
        // Given
        let jpeg = try JPEGEncoder.encode(photo, quality: 95)

        // When
        let decoded = try JPEGDecoder.decode(jpeg)

        // Then: a baseline frame, same size, close to the original
        #expect(JPEGFixture.markerOffset(0xC0, in: jpeg) != nil)
        #expect(JPEGFixture.markerOffset(0xC2, in: jpeg) == nil)
        #expect((decoded.width, decoded.height, decoded.channels) == (320, 213, 3))
        #expect(meanDifference(decoded.bytes, photo.bytes) < 4)
    }

    @Test func progressiveDecodesLikeBaseline() throws {
        // Given: the same image written progressively (jpeg_simple_progression, 10 scans)
        let baseline = try JPEGEncoder.encode(photo, quality: 90)
        let progressive = try JPEGEncoder.encode(photo, quality: 90, progressive: true)

        // When
        let decoded = try JPEGDecoder.decode(progressive)

        // Then: progression only reorders the same coefficients
        #expect(JPEGFixture.markerOffset(0xC2, in: progressive) != nil)
        #expect(decoded == (try JPEGDecoder.decode(baseline)))
    }

    @Test func alphaIsDroppedWhenEncoding() throws {
        // Given
        let rgba = SamplePhoto.make(seed: 11, width: 320, height: 213, alpha: true)

        // When
        let decoded = try JPEGDecoder.decode(try JPEGEncoder.encode(rgba, quality: 95))

        // Then
        let rgb = stride(from: 0, to: rgba.bytes.count, by: 4).flatMap { rgba.bytes[$0..<$0 + 3] }
        #expect(decoded.channels == 3)
        #expect(meanDifference(decoded.bytes, rgb) < 4)
    }

    @Test func grayscaleDecodesToRGB() throws {
        // Given: an 8-bit horizontal ramp in a one-component JPEG
        let gray = (0..<64 * 32).map { UInt8($0 % 64 * 4) }
        let jpeg = try JPEGFixture.encode(gray, width: 64, height: 32, components: 1, colorSpace: JCS_GRAYSCALE)

        // When
        let decoded = try JPEGDecoder.decode(jpeg)

        // Then: three equal channels, matching the gray levels
        #expect(decoded.channels == 3)
        let pixels = stride(from: 0, to: decoded.bytes.count, by: 3).map { Array(decoded.bytes[$0..<$0 + 3]) }
        #expect(pixels.allSatisfy { $0[0] == $0[1] && $0[1] == $0[2] })
        #expect(maxDifference(pixels.map { $0[0] }, gray) <= 4)
    }

    @Test func adobeInvertedCMYKConvertsToRGB() throws {
        // Given: four flat patches of ink, stored inverted as Photoshop does (255 = no ink)
        let inks: [[Int]] = [[0, 0, 0, 0], [255, 0, 0, 0], [0, 128, 255, 0], [0, 0, 0, 128]]
        var samples: [UInt8] = []
        for y in 0..<32 {
            for x in 0..<64 { samples += inks[(y / 16) * 2 + x / 32].map { UInt8(255 - $0) } }
        }
        let jpeg = try JPEGFixture.encode(samples, width: 64, height: 32, components: 4, colorSpace: JCS_CMYK)

        // When
        let decoded = try JPEGDecoder.decode(jpeg)

        // Then: each patch centre is (255 - C)(255 - K)/255 and so on
        let centres = [(16, 8), (48, 8), (16, 24), (48, 24)]
        for (ink, (x, y)) in zip(inks, centres) {
            let expected = (0..<3).map { (255 - ink[$0]) * (255 - ink[3]) / 255 }
            let actual = decoded[x, y].map { Int($0) }
            #expect(zip(actual, expected).allSatisfy { abs($0 - $1) <= 3 }, "ink \(ink): \(actual) vs \(expected)")
        }
    }

    @Test(arguments: [(160, 2, 400, 267), (134, 1, 200, 134), (135, 2, 400, 267), (500, 4, 800, 534), (1067, 8, 1600, 1067), (5000, 8, 1600, 1067)])
    func chosenScaleIsTheSmallestThatIsTallEnough(minimumHeight: Int, numerator: Int, width: Int, height: Int) async throws {
        // Given: a photo-sized JPEG (1067 / 8 = 133.4, so 1/8 scale is 134 rows)
        let jpeg = try await photoSizedJPEG()

        // When
        let size = try JPEGDecoder.outputSize(of: jpeg, minimumHeight: minimumHeight)

        // Then
        #expect((size.width, size.height, size.scaleNumerator) == (width, height, numerator))
    }

    @Test func decodingForAThumbnailUsesTheReducedScale() async throws {
        // Given
        let jpeg = try await photoSizedJPEG()

        // When
        let small = try JPEGDecoder.decode(jpeg, minimumHeight: 160)
        let viaSniffing = try ImageDecoder.decode(jpeg, minimumHeight: 160)
        let full = try JPEGDecoder.decode(jpeg)

        // Then
        #expect((small.width, small.height) == (400, 267))
        #expect(viaSniffing == small)
        #expect((full.width, full.height) == (1600, 1067))
    }

    @Test func truncatedFileIsCorruptWithLibjpegsMessage() throws {
        // Given
        let jpeg = try JPEGEncoder.encode(photo)

        // When
        let error = #expect(throws: ImageCodecError.self) { try JPEGDecoder.decode(jpeg.prefix(jpeg.count / 2)) }

        // Then
        guard case .corrupt(.jpeg, let reason) = error else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("Premature end of JPEG file"))
        #expect(error?.description == "The image is cut short (truncated JPEG)")
        #expect(error?.detail == "corrupt JPEG: Premature end of JPEG file")
    }

    @Test func markerInsideTheScanIsCorrupt() throws {
        // Given: an EOI marker planted in the middle of the entropy-coded data
        var jpeg = try JPEGEncoder.encode(photo)
        let scan = try #require(JPEGFixture.markerOffset(0xDA, in: jpeg))
        let middle = scan + (jpeg.count - scan) / 2
        jpeg.replaceSubrange(middle..<middle + 2, with: [0xFF, 0xD9])

        // When / Then: libjpeg only warns and fills in gray; untrusted input must fail instead
        let error = #expect(throws: ImageCodecError.self) { try JPEGDecoder.decode(jpeg) }
        guard case .corrupt(.jpeg, _) = error else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
            return
        }
    }

    @Test func absurdDimensionsAreRejectedFromTheHeader() throws {
        // Given: a small JPEG whose SOF0 claims 60000x60000 (3.6 gigapixels)
        var jpeg = try JPEGEncoder.encode(photo)
        let sof = try #require(JPEGFixture.markerOffset(0xC0, in: jpeg))
        jpeg.replaceSubrange(sof + 5..<sof + 9, with: [0xEA, 0x60, 0xEA, 0x60])

        // When
        let error = #expect(throws: ImageCodecError.self) { try JPEGDecoder.decode(jpeg) }

        // Then: thrown by the header check, so nothing the size of the image was allocated
        #expect(error == .tooManyPixels(width: 60_000, height: 60_000, limit: 50_000_000))
    }

    @Test func progressiveScanLimit() throws {
        // Given: 10 scans
        let jpeg = try JPEGEncoder.encode(photo, progressive: true)

        // When
        let error = #expect(throws: ImageCodecError.self) {
            try JPEGDecoder.decode(jpeg, limits: DecodeLimits(maxProgressiveScans: 5))
        }

        // Then
        #expect(error == .unsupported(format: .jpeg, reason: "progressive JPEG has more than 5 scans, the limit"))
        #expect((try? JPEGDecoder.decode(jpeg, limits: DecodeLimits(maxProgressiveScans: 10))) != nil)
    }

    @Test func libjpegMemoryLimit() throws {
        // Given: a progressive JPEG buffers all its coefficients (~200 KB here) even for a 1/8 scale output
        let jpeg = try JPEGEncoder.encode(photo, progressive: true)
        let limits = DecodeLimits(maxMemoryBytes: 100_000)

        // When
        let error = #expect(throws: ImageCodecError.self) { try JPEGDecoder.decode(jpeg, minimumHeight: 20, limits: limits) }

        // Then
        guard case .unsupported(.jpeg, let reason) = error else {
            Issue.record("expected .unsupported, got \(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("needs more than the memory limit of 100000 bytes"))
    }

    @Test func outputBufferOverTheMemoryLimitIsRefusedBeforeDecoding() throws {
        // Given: 320x213 RGB needs 204,480 bytes
        let jpeg = try JPEGEncoder.encode(photo)

        // When / Then
        #expect(throws: ImageCodecError.unsupported(
            format: .jpeg, reason: "decoded pixels need 204480 bytes, over the memory limit of 200000")) {
            try JPEGDecoder.decode(jpeg, limits: DecodeLimits(maxMemoryBytes: 200_000))
        }
    }

    @Test func emptyAndGarbageInputAreCorrupt() {
        // Given / When / Then
        #expect(throws: ImageCodecError.corrupt(format: .jpeg, reason: "empty input")) { try JPEGDecoder.decode(Data()) }
        let error = #expect(throws: ImageCodecError.self) { try JPEGDecoder.decode(Data("GIF89a".utf8)) }
        guard case .corrupt(.jpeg, let reason) = error else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("Not a JPEG file"))
    }
}
