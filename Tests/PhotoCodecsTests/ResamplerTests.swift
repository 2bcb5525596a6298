import PhotoCodecs
import Testing

@Suite struct ResamplerTests {
    @Test func imageNoTallerThanTheTargetIsReturnedUnchanged() {
        // Given
        let image = SamplePhoto.make(seed: 1, width: 30, height: 20)

        // When / Then
        #expect(Resampler.scaled(image, toHeight: 20) == image)
        #expect(Resampler.scaled(image, toHeight: 200) == image)
    }

    @Test(arguments: [(1600, 1067, 160, 240), (400, 267, 160, 240), (1000, 3, 1, 333), (3, 1000, 10, 1), (1067, 1600, 160, 107)])
    func sizeKeepsTheAspectRatio(width: Int, height: Int, target: Int, expectedWidth: Int) {
        // Given
        let image = solid(width: width, height: height, [10, 20, 30])

        // When
        let scaled = Resampler.scaled(image, toHeight: target)

        // Then
        #expect((scaled.width, scaled.height) == (expectedWidth, target))
    }

    @Test func halvingAveragesEachTwoByTwoBlock() {
        // Given: a 4x2 image
        let image = PixelBuffer(width: 4, height: 2, channels: 3, bytes: [
            0, 0, 0, 10, 20, 30, 255, 255, 255, 255, 255, 255,
            20, 40, 60, 30, 0, 90, 0, 0, 0, 1, 1, 1,
        ])

        // When
        let scaled = Resampler.scaled(image, toHeight: 1)

        // Then: (0 + 10 + 20 + 30) / 4 = 15, (0 + 20 + 40 + 0) / 4 = 15, (0 + 30 + 60 + 90) / 4 = 45; 127.75 -> 128
        #expect(scaled.bytes == [15, 15, 45, 128, 128, 128])
    }

    @Test func fractionalRatioWeighsPartlyCoveredRowsByArea() {
        // Given: three rows onto two, so the middle row is shared half and half
        let image = PixelBuffer(width: 1, height: 3, channels: 3, bytes: [0, 0, 0, 90, 90, 90, 180, 180, 180])

        // When
        let scaled = Resampler.scaled(image, toHeight: 2)

        // Then: (0 + 0.5 * 90) / 1.5 = 30 and (0.5 * 90 + 180) / 1.5 = 150
        #expect(scaled.bytes == [30, 30, 30, 150, 150, 150])
    }

    @Test func flatColourStaysExactlyFlat() {
        // Given
        let image = solid(width: 401, height: 267, [200, 100, 7, 77])

        // When
        let scaled = Resampler.scaled(image, toHeight: 160)

        // Then
        #expect(scaled == solid(width: 240, height: 160, [200, 100, 7, 77]))
    }

    @Test func transparentPixelsDoNotBleedColour() {
        // Given: transparent red beside opaque blue
        let image = PixelBuffer(width: 2, height: 2, channels: 4, bytes: [
            255, 0, 0, 0, 0, 0, 255, 255,
            255, 0, 0, 0, 0, 0, 255, 255,
        ])

        // When
        let scaled = Resampler.scaled(image, toHeight: 1)

        // Then: blue at half coverage, not purple
        #expect(scaled.bytes == [0, 0, 255, 128])
    }

    @Test func nonPositiveTargetMeansOneRow() {
        // Given
        let image = solid(width: 10, height: 10, [1, 2, 3])

        // When / Then
        #expect(Resampler.scaled(image, toHeight: 0).height == 1)
    }
}
