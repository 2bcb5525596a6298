import PhotoCodecs
import TestOrigin
import Testing

@Suite struct SamplePhotoTests {
    @Test func sameSeedSamePixelsOtherSeedOtherPixels() {
        // Given / When
        let first = SamplePhoto.make(seed: 5, width: 200, height: 133)
        let again = SamplePhoto.make(seed: 5, width: 200, height: 133)
        let other = SamplePhoto.make(seed: 6, width: 200, height: 133)

        // Then
        #expect(first == again)
        #expect(first != other)
    }

    @Test func defaultsToAPhotoSizedRGBImage() async {
        // Given / When (made on a thread of its own: see `offThePool`)
        let photo = await offThePool { SamplePhoto.make(seed: 1) }

        // Then
        #expect((photo.width, photo.height, photo.channels) == (1600, 1067, 3))
    }

    @Test(arguments: [(1, 1), (2, 3), (65, 1), (1, 70)])
    func tinySizesWork(width: Int, height: Int) {
        // Given / When
        let photo = SamplePhoto.make(seed: 1, width: width, height: height, alpha: true)

        // Then
        #expect((photo.width, photo.height, photo.bytes.count) == (width, height, width * height * 4))
    }

    @Test func alphaVersionHasTransparentCornersAndAnOpaqueCentre() {
        // Given / When
        let photo = SamplePhoto.make(seed: 1, width: 120, height: 80, alpha: true)

        // Then
        #expect(photo.channels == 4)
        #expect(photo[0, 0][3] == 0 && photo[119, 79][3] == 0)
        #expect(photo[60, 40][3] == 255)
    }

    @Test func colourfulSmoothAndNotFlat() async {
        // Given / When (on a thread of its own: in a debug build these passes over every byte take
        // seconds, which on one of the two threads every test shares stalled the others; `offThePool`)
        let (saturatedShare, meanStep, deviation) = await offThePool { () -> (Double, Double, Double) in
            let photo = SamplePhoto.make(seed: 8, width: 320, height: 213)
            let pixels = stride(from: 0, to: photo.bytes.count, by: 3).map { photo.bytes[$0..<$0 + 3].map { Int($0) } }
            let saturated = pixels.filter { $0.max()! - $0.min()! > 40 }.count
            let neighbourStep = zip(photo.bytes, photo.bytes.dropFirst(3)).map { abs(Int($0) - Int($1)) }.reduce(0, +)
            let mean = Double(photo.bytes.map(Int.init).reduce(0, +)) / Double(photo.bytes.count)
            let variance = photo.bytes.map { (Double($0) - mean) * (Double($0) - mean) }.reduce(0, +) / Double(photo.bytes.count)
            return (Double(saturated) / Double(pixels.count), Double(neighbourStep) / Double(photo.bytes.count), variance.squareRoot())
        }

        // Then: mostly coloured pixels (so sepia changes them), small pixel-to-pixel steps, real contrast
        #expect(saturatedShare > 0.3)
        #expect(meanStep < 12)
        #expect(deviation > 30)
    }
}
