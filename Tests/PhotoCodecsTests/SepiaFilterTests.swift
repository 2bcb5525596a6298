import PhotoCodecs
import Testing

@Suite struct SepiaFilterTests {
    @Test func fullIntensityMatrixIsTheClassicSepiaMatrix() {
        // Given / When
        let matrix = SepiaFilter(intensity: 1).matrix

        // Then
        let classic = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]
        for (row, expected) in zip(matrix, classic) {
            for (value, want) in zip(row, expected) { #expect(abs(value - want) < 1e-12) }
        }
    }

    @Test func defaultIntensityIsPointEightAndInterpolatesTowardIdentity() {
        // Given
        let filter = SepiaFilter()

        // When
        let matrix = filter.matrix

        // Then: W3C sepia(0.8), e.g. red row 0.393 + 0.607 * 0.2 = 0.5144
        #expect(filter.intensity == 0.8)
        #expect(abs(matrix[0][0] - 0.5144) < 1e-12)
        #expect(abs(matrix[1][1] - 0.7488) < 1e-12)
        #expect(abs(matrix[2][2] - 0.3048) < 1e-12)
        #expect(abs(matrix[0][1] - 0.6152) < 1e-12)
    }

    @Test func knownColoursAtFullIntensityMatchTheMatrixRoundedAndClamped() {
        // Given: white overflows red and green (344.5, 306.8) and must clamp; blue is 238.9
        var image = PixelBuffer(width: 4, height: 1, channels: 3,
                                bytes: [255, 255, 255, 255, 0, 0, 0, 0, 255, 0, 0, 0])

        // When
        SepiaFilter(intensity: 1).apply(to: &image)

        // Then: values worked out by hand from the matrix
        #expect(image.bytes == [255, 255, 239, 100, 89, 69, 48, 43, 33, 0, 0, 0])
    }

    @Test func knownColourAtDefaultIntensity() {
        // Given
        var image = PixelBuffer(width: 1, height: 1, channels: 3, bytes: [200, 100, 50])

        // When
        SepiaFilter().apply(to: &image)

        // Then: 171.96, 137.44 and 101.48 rounded
        #expect(image.bytes == [172, 137, 101])
    }

    @Test func zeroIntensityIsIdentity() {
        // Given
        let original = SamplePhoto.make(seed: 3, width: 64, height: 48)
        var image = original

        // When
        SepiaFilter(intensity: 0).apply(to: &image)

        // Then
        #expect(image == original)
    }

    @Test(arguments: [0.0, 0.25, 0.5, 0.8, 1.0, 1.7, -0.5])
    func everyPixelIsTheW3CFormulaCorrectlyRounded(intensity: Double) {
        // Given: a colourful image covering many colours
        let original = SamplePhoto.make(seed: 9, width: 97, height: 31)
        var image = original

        // When
        SepiaFilter(intensity: intensity).apply(to: &image)

        // Then: within rounding (0.5) plus the fixed-point error (under 0.01); out-of-range amounts clamp
        var worst = 0.0
        for i in stride(from: 0, to: original.bytes.count, by: 3) {
            let expected = w3cSepia(original.bytes[i..<i + 3].map { Int($0) }, amount: intensity)
            for c in 0..<3 { worst = max(worst, abs(Double(image.bytes[i + c]) - expected[c])) }
        }
        #expect(worst <= 0.51)
    }

    @Test func alphaIsLeftUntouched() {
        // Given
        let original = SamplePhoto.make(seed: 4, width: 40, height: 30, alpha: true)
        var image = original

        // When
        SepiaFilter().apply(to: &image)

        // Then
        let alpha = { (buffer: PixelBuffer) in stride(from: 3, to: buffer.bytes.count, by: 4).map { buffer.bytes[$0] } }
        #expect(alpha(image) == alpha(original))
        #expect(image.bytes != original.bytes)
        #expect(Array(image.bytes[0..<3]) == w3cSepia(original.bytes[0..<3].map { Int($0) }, amount: 0.8)
            .map { UInt8($0.rounded()) })
    }
}
