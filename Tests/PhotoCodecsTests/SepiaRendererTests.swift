import Foundation
import PhotoCodecs
import Testing

@Suite struct SepiaRendererTests {
    private let renderer = SepiaRenderer()

    @Test func thumbnailOfAPhotoSizedJPEGIsAJPEGOfExactlyTheRequestedHeight() async throws {
        // Given: 1600x1067, which the decoder reads at 2/8 scale (400x267) for a 160 px thumbnail
        let jpeg = try await photoSizedJPEG()
        #expect(try JPEGDecoder.outputSize(of: jpeg, minimumHeight: 160).scaleNumerator == 2)

        // When
        let thumbnail = try renderer.thumbnail(of: jpeg, height: 160)

        // Then
        #expect(thumbnail.format == .jpeg)
        #expect((thumbnail.width, thumbnail.height) == (240, 160))
        let decoded = try JPEGDecoder.decode(thumbnail.data)
        #expect((decoded.width, decoded.height) == (240, 160))
        #expect(isSepia(decoded))
    }

    @Test func thumbnailOfAPNGWithAlphaIsAPNGKeepingAlpha() throws {
        // Given
        let png = try PNGEncoder.encode(SamplePhoto.make(seed: 2, width: 480, height: 320, alpha: true))

        // When
        let thumbnail = try renderer.thumbnail(of: png, height: 160)

        // Then: transparent corners, opaque centre
        #expect(thumbnail.format == .png)
        let decoded = try PNGDecoder.decode(thumbnail.data)
        #expect((decoded.width, decoded.height, decoded.channels) == (240, 160, 4))
        #expect(decoded[0, 0][3] == 0 && decoded[239, 159][3] == 0)
        #expect(decoded[120, 80][3] == 255)
    }

    @Test func smallImagesAreNotUpscaled() throws {
        // Given
        let jpeg = try JPEGEncoder.encode(SamplePhoto.make(seed: 3, width: 100, height: 80))

        // When
        let thumbnail = try renderer.thumbnail(of: jpeg, height: 160)

        // Then
        #expect((thumbnail.width, thumbnail.height) == (100, 80))
    }

    @Test func fullSizeKeepsTheSize() throws {
        // Given
        let jpeg = try JPEGEncoder.encode(SamplePhoto.make(seed: 4, width: 320, height: 213))

        // When
        let image = try renderer.fullSize(of: jpeg)

        // Then
        #expect(image.format == .jpeg)
        #expect((image.width, image.height) == (320, 213))
        #expect(isSepia(try JPEGDecoder.decode(image.data)))
    }

    @Test func fullSizeOfALosslessInputIsExactlyTheFormula() throws {
        // Given: PNG with alpha in and (so) PNG out, nothing lossy on the way
        let source = SamplePhoto.make(seed: 5, width: 64, height: 48, alpha: true)

        // When
        let image = try renderer.fullSize(of: try PNGEncoder.encode(source))

        // Then: each pixel is W3C sepia(0.8) correctly rounded, alpha untouched
        #expect(image.format == .png)
        let output = try PNGDecoder.decode(image.data)
        var worst = 0.0
        for i in stride(from: 0, to: source.bytes.count, by: 4) {
            let expected = w3cSepia(source.bytes[i..<i + 3].map { Int($0) }, amount: 0.8)
            for c in 0..<3 { worst = max(worst, abs(Double(output.bytes[i + c]) - expected[c])) }
            #expect(output.bytes[i + 3] == source.bytes[i + 3])
        }
        #expect(worst <= 0.51)
    }

    @Test func thumbnailMatchesTheGoldenImage() throws {
        // Given
        let jpeg = try JPEGEncoder.encode(SamplePhoto.make(seed: 2024, width: 192, height: 128), quality: 90)

        // When
        let thumbnail = try renderer.thumbnail(of: jpeg, height: 48)
        let pixels = try JPEGDecoder.decode(thumbnail.data)

        // Then: libjpeg-turbo releases may round a few samples differently.
        // To re-record after an intended change: PHOTOCODECS_RECORD_GOLDEN=1 swift test, then swift test again.
        if ProcessInfo.processInfo.environment["PHOTOCODECS_RECORD_GOLDEN"] == "1" {
            try PNGEncoder.encode(pixels).write(to: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("Resources/sepia-thumbnail-golden.png"))
        }
        let goldenURL = try #require(Bundle.module.url(forResource: "sepia-thumbnail-golden", withExtension: "png",
                                                       subdirectory: "Resources"))
        let golden = try PNGDecoder.decode(try Data(contentsOf: goldenURL))
        #expect((pixels.width, pixels.height) == (golden.width, golden.height))
        #expect(maxDifference(pixels.bytes, golden.bytes) <= 3)
        #expect(meanDifference(pixels.bytes, golden.bytes) <= 0.5)
    }

    @Test(arguments: 1...3)
    func cancellationBetweenStagesStops(atCheck: Int) throws {
        // Given: a check that says "cancelled" from its n-th call on
        let jpeg = try JPEGEncoder.encode(SamplePhoto.make(seed: 6, width: 64, height: 48))
        var checks = 0
        let isCancelled = {
            checks += 1
            return checks >= atCheck
        }

        // When / Then: before decoding, before filtering, before encoding
        #expect(throws: ImageCodecError.cancelled) { try renderer.thumbnail(of: jpeg, height: 16, isCancelled: isCancelled) }
        #expect(checks == atCheck)
        checks = 0
        #expect(throws: ImageCodecError.cancelled) { try renderer.fullSize(of: jpeg, isCancelled: isCancelled) }
        #expect(checks == atCheck)
    }

    @Test func notCancelledChecksThreeTimesAndFinishes() throws {
        // Given
        let jpeg = try JPEGEncoder.encode(SamplePhoto.make(seed: 6, width: 64, height: 48))
        var checks = 0

        // When
        let thumbnail = try renderer.thumbnail(of: jpeg, height: 16) {
            checks += 1
            return false
        }

        // Then
        #expect(checks == 3)
        #expect(thumbnail.height == 16)
    }

    @Test func decodeErrorsPassThrough() {
        // Given / When / Then
        #expect(throws: ImageCodecError.unsupportedFormat(.html)) {
            try renderer.thumbnail(of: Data("<!DOCTYPE html>".utf8))
        }
    }

    /// Sepia tone: on average red over green over blue, and little saturation.
    private func isSepia(_ image: PixelBuffer) -> Bool {
        var sums = [0, 0, 0]
        for i in stride(from: 0, to: image.bytes.count, by: image.channels) {
            for c in 0..<3 { sums[c] += Int(image.bytes[i + c]) }
        }
        return sums[0] > sums[1] && sums[1] > sums[2]
    }
}
