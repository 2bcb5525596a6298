import Foundation
import PhotoCodecs
import Testing

@Suite struct PNGDecoderTests {
    @Test(arguments: [false, true])
    func roundTripIsLossless(alpha: Bool) throws {
        // Given
        let image = SamplePhoto.make(seed: 21, width: 75, height: 50, alpha: alpha)

        // When
        let decoded = try PNGDecoder.decode(try PNGEncoder.encode(image))

        // Then
        #expect(decoded == image)
    }

    @Test(arguments: [false, true])
    func rgbEightBitInterlacedOrNot(interlaced: Bool) throws {
        // Given: 13x11 so every Adam7 pass is partial
        let png = PNGFixture.make(width: 13, height: 11, colorType: 2, bitDepth: 8, interlaced: interlaced) { x, y in
            [x * 19, y * 23, (x * y) % 256]
        }

        // When
        let decoded = try PNGDecoder.decode(png)

        // Then
        #expect((decoded.width, decoded.height, decoded.channels) == (13, 11, 3))
        for (x, y) in [(0, 0), (12, 10), (5, 3), (7, 8), (1, 1)] {
            #expect(Array(decoded[x, y]) == [UInt8(x * 19), UInt8(y * 23), UInt8((x * y) % 256)])
        }
    }

    @Test func paletteBecomesRGB() throws {
        // Given: a 4-bit palette image
        let palette: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [10, 20, 30]]
        let png = PNGFixture.make(width: 7, height: 5, colorType: 3, bitDepth: 4, palette: palette) { x, y in [(x + y) % 4] }

        // When
        let decoded = try PNGDecoder.decode(png)

        // Then
        #expect(decoded.channels == 3)
        for y in 0..<5 {
            for x in 0..<7 { #expect(Array(decoded[x, y]) == palette[(x + y) % 4]) }
        }
    }

    @Test func paletteWithTRNSBecomesRGBA() throws {
        // Given: entry 0 fully transparent, entry 1 half, entry 2 opaque (no tRNS entry)
        let palette: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255]]
        let png = PNGFixture.make(width: 3, height: 1, colorType: 3, bitDepth: 8, palette: palette,
                                  transparency: [0, 128]) { x, _ in [x] }

        // When
        let decoded = try PNGDecoder.decode(png)

        // Then
        #expect(decoded.channels == 4)
        #expect(decoded.bytes == [255, 0, 0, 0, 0, 255, 0, 128, 0, 0, 255, 255])
    }

    @Test func grayscaleBecomesRGB() throws {
        // Given: 8-bit and 1-bit gray
        let gray8 = PNGFixture.make(width: 16, height: 2, colorType: 0, bitDepth: 8) { x, y in [x * 16 + y] }
        let gray1 = PNGFixture.make(width: 9, height: 1, colorType: 0, bitDepth: 1) { x, _ in [x % 2] }

        // When
        let decoded8 = try PNGDecoder.decode(gray8)
        let decoded1 = try PNGDecoder.decode(gray1)

        // Then
        #expect(decoded8.channels == 3)
        #expect(Array(decoded8[5, 1]) == [81, 81, 81])
        #expect(decoded1.bytes == (0..<9).flatMap { x -> [UInt8] in x % 2 == 0 ? [0, 0, 0] : [255, 255, 255] })
    }

    @Test func grayWithAlphaBecomesRGBA() throws {
        // Given
        let png = PNGFixture.make(width: 2, height: 1, colorType: 4, bitDepth: 8) { x, _ in [100 + x, 255 * x] }

        // When
        let decoded = try PNGDecoder.decode(png)

        // Then
        #expect(decoded.bytes == [100, 100, 100, 0, 101, 101, 101, 255])
    }

    @Test func sixteenBitIsScaledToEightBitWithoutGammaChange() throws {
        // Given: 16-bit RGB and RGBA with no gAMA chunk (taken as sRGB, like browsers do)
        let rgb16 = PNGFixture.make(width: 3, height: 1, colorType: 2, bitDepth: 16) { x, _ in
            [0x8080 * (x % 2), 0xFFFF, 257 * 64 * x]
        }
        let rgba16 = PNGFixture.make(width: 1, height: 1, colorType: 6, bitDepth: 16) { _, _ in
            [257 * 200, 257 * 100, 257 * 50, 0xFFFF]
        }

        // When
        let decodedRGB = try PNGDecoder.decode(rgb16)
        let decodedRGBA = try PNGDecoder.decode(rgba16)

        // Then: v / 257, not brightened as linear light would be (0x8080 would become 188)
        #expect(decodedRGB.bytes == [0, 255, 0, 128, 255, 64, 0, 255, 128])
        #expect(decodedRGBA.bytes == [200, 100, 50, 255])
    }

    @Test func flippedIDATByteIsCorrupt() throws {
        // Given
        var png = try PNGEncoder.encode(SamplePhoto.make(seed: 2, width: 40, height: 30))
        let idat = try #require(PNGFixture.dataOffset(of: "IDAT", in: png))
        png[idat + 10] ^= 0xFF

        // When / Then: zlib trips over the damage before libpng reaches the chunk's CRC
        let error = #expect(throws: ImageCodecError.self) { try PNGDecoder.decode(png) }
        guard case .corrupt(.png, let reason) = error else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("IDAT: "))
    }

    @Test func flippedIDATCRCFailsTheCRCCheck() throws {
        // Given: intact data, damaged checksum
        let png = PNGFixture.make(width: 4, height: 4, colorType: 2, bitDepth: 8) { x, y in [x, y, 0] }
        let idat = try #require(PNGFixture.dataOffset(of: "IDAT", in: png))
        var bytes = [UInt8](png)
        let length = Int(bytes[idat - 6]) << 8 | Int(bytes[idat - 5])
        bytes[idat + length] ^= 0xFF

        // When / Then
        #expect(throws: ImageCodecError.corrupt(format: .png, reason: "IDAT: CRC error")) {
            try PNGDecoder.decode(Data(bytes))
        }
    }

    @Test func brokenCompressedDataWithValidCRCIsCorrupt() throws {
        // Given: a zlib header that is not deflate, with the chunk CRC fixed up
        let good = PNGFixture.make(width: 4, height: 4, colorType: 2, bitDepth: 8) { x, y in [x, y, 0] }
        let idat = try #require(PNGFixture.dataOffset(of: "IDAT", in: good))
        var bytes = [UInt8](good)
        bytes[idat] = 0x00
        let length = Int(bytes[idat - 6]) << 8 | Int(bytes[idat - 5])
        bytes.replaceSubrange(idat + length..<idat + length + 4,
                              with: PNGFixture.bigEndian(PNGFixture.crc32(bytes[idat - 4..<idat + length])))

        // When / Then
        let error = #expect(throws: ImageCodecError.self) { try PNGDecoder.decode(Data(bytes)) }
        guard case .corrupt(.png, _) = error else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
            return
        }
    }

    @Test func truncatedFileIsCorrupt() throws {
        // Given
        let png = try PNGEncoder.encode(SamplePhoto.make(seed: 2, width: 40, height: 30))

        // When / Then
        let error = #expect(throws: ImageCodecError.self) { try PNGDecoder.decode(png.prefix(png.count / 2)) }
        guard case .corrupt(.png, _) = error else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
            return
        }
    }

    @Test func absurdIHDRIsRejectedBeforeAllocating() throws {
        // Given: a 1x1 PNG whose IHDR (with a valid CRC) claims 60000x60000
        var bytes = [UInt8](PNGFixture.make(width: 1, height: 1, colorType: 2, bitDepth: 8) { _, _ in [1, 2, 3] })
        let ihdr = try #require(PNGFixture.dataOffset(of: "IHDR", in: Data(bytes)))
        bytes.replaceSubrange(ihdr..<ihdr + 8, with: PNGFixture.bigEndian(60_000) + PNGFixture.bigEndian(60_000))
        bytes.replaceSubrange(ihdr + 13..<ihdr + 17, with: PNGFixture.bigEndian(PNGFixture.crc32(bytes[ihdr - 4..<ihdr + 13])))

        // When
        let error = #expect(throws: ImageCodecError.self) { try PNGDecoder.decode(Data(bytes)) }

        // Then: from the header check; allocating 60000x60000 RGB would need 10.8 GB
        #expect(error == .tooManyPixels(width: 60_000, height: 60_000, limit: 50_000_000))
    }

    @Test func pixelLimitIsConfigurable() throws {
        // Given
        let png = try PNGEncoder.encode(SamplePhoto.make(seed: 2, width: 100, height: 100))

        // When / Then
        #expect(throws: ImageCodecError.tooManyPixels(width: 100, height: 100, limit: 5_000)) {
            try PNGDecoder.decode(png, limits: DecodeLimits(maxPixels: 5_000))
        }
        #expect((try? PNGDecoder.decode(png, limits: DecodeLimits(maxPixels: 10_000))) != nil)
    }
}
