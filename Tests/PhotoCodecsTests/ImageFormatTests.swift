import Foundation
import PhotoCodecs
import Testing

@Suite struct ImageFormatTests {
    @Test func sniffsJPEGAndPNGByMagicBytes() throws {
        // Given
        let image = SamplePhoto.make(seed: 1, width: 8, height: 8)
        let jpeg = try JPEGEncoder.encode(image)
        let png = try PNGEncoder.encode(image)

        // When / Then
        #expect(ImageFormat(sniffing: jpeg) == .jpeg)
        #expect(ImageFormat(sniffing: png) == .png)
        #expect(ImageFormat(sniffing: [UInt8]([0xFF, 0xD8, 0xFF, 0xE0])) == .jpeg)
        #expect(ImageFormat(sniffing: Data("<html>".utf8)) == nil)
        #expect(ImageFormat(sniffing: [UInt8]([0x89, 0x50, 0x4E])) == nil)
        #expect(ImageFormat.jpeg.mimeType == "image/jpeg")
        #expect(ImageFormat.png.mimeType == "image/png")
    }

    @Test func unknownBytesAreNotAnImage() {
        // Given: bytes no sniffer knows
        let data = Data([0x00, 0x01, 0x02, 0x03, 0x04])

        // When / Then
        let error = #expect(throws: ImageCodecError.self) { try ImageDecoder.decode(data) }
        #expect(error == .notAnImage(leadingBytes: "00 01 02 03"))
        #expect(error?.description == "This is not an image (JPEG and PNG are supported)")
        #expect(error?.detail == "not a JPEG or PNG image (its first bytes match no known format)")
    }

    @Test func htmlIsAWebPage() {
        // Given: what a server sends for a missing photo
        let html = Data("<html><body>404</body></html>".utf8)

        // When / Then
        let error = #expect(throws: ImageCodecError.self) {
            try ImageDecoder.decode(html, minimumHeight: nil, limits: .init())
        }
        #expect(error == .unsupportedFormat(.html))
        #expect(error?.description == "This is a web page, not an image")
    }

    @Test func emptyDataIsNotAnImage() {
        // Given / When / Then
        let error = #expect(throws: ImageCodecError.self) { try ImageDecoder.decode(Data()) }
        #expect(error == .notAnImage(leadingBytes: ""))
        #expect(error?.description == "The file is empty")
        #expect(error?.detail == "not a JPEG or PNG image (empty)")
    }

    @Test func errorDetailsKeepTheTechnicalText() {
        // Given / When / Then
        #expect(ImageCodecError.tooManyPixels(width: 100_000, height: 100_000, limit: 50_000_000).detail
            == "image is 100000x100000 (10000 megapixels), over the limit of 50 megapixels")
        #expect(ImageCodecError.tooManyPixels(width: 1600, height: 1067, limit: 1_000_000).detail
            == "image is 1600x1067 (1.7 megapixels), over the limit of 1 megapixels")
        #expect(ImageCodecError.tooManyPixels(width: 1600, height: 1067, limit: 1_000_000).description
            == "The image is too large: 1600x1067 is 1.7 megapixels (the limit is 1)")
        #expect(ImageCodecError.corrupt(format: .jpeg, reason: "Premature end of JPEG file").description
            == "The image is cut short (truncated JPEG)")
        #expect(ImageCodecError.unsupported(format: .png, reason: "x").detail == "unsupported PNG: x")
        #expect(ImageCodecError.encodingFailed(format: .jpeg, reason: "y").detail == "could not encode JPEG: y")
    }
}
