import Foundation
import PhotoCodecs
import Testing

@Suite("Reasons for people: foreign formats by magic bytes, codec errors in words")
struct ForeignFormatTests {
    /// Leading bytes of each foreign kind, with the reason a person reads.
    static let foreign: [([UInt8], String)] = [
        (ascii("RIFF", [0x24, 0, 0, 0]) + ascii("WEBPVP8 "), "WebP images are not supported (JPEG and PNG are)"),
        (ascii("GIF89a", [1, 0, 1, 0]), "GIF images are not supported"),
        (ascii("GIF87a", [1, 0, 1, 0]), "GIF images are not supported"),
        (ascii("<!DOCTYPE html><html>"), "This is a web page, not an image"),
        ([0xEF, 0xBB, 0xBF] + ascii("\n  <HTML lang=en>"), "This is a web page, not an image"),
        (ascii("%PDF-1.7\n"), "This is a PDF document, not an image"),
        (ascii("BM", [UInt8](repeating: 0, count: 20)), "BMP images are not supported (JPEG and PNG are)"),
        ([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0], "TIFF images are not supported (JPEG and PNG are)"),
        ([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8], "TIFF images are not supported (JPEG and PNG are)"),
        ([0, 0, 0, 0x18] + ascii("ftypheic", [0, 0, 0, 0]), "HEIC images are not supported (JPEG and PNG are)"),
        ([0, 0, 0, 0x1C] + ascii("ftypavif", [0, 0, 0, 0]), "AVIF images are not supported (JPEG and PNG are)"),
        (ascii("<?xml version=\"1.0\"?><svg>"), "SVG drawings are not supported (JPEG and PNG are)"),
    ]

    /// Bytes that start like a foreign kind but are not one.
    static let lookAlikes: [[UInt8]] = [
        ascii("RIFF", [0, 0, 0, 0]) + ascii("WAVE"),
        ascii("GIF8"),
        [0, 0, 0, 0x18] + ascii("ftypmp42"),
        ascii("BM"),
        ascii("hello <html>"),
    ]

    private static func ascii(_ text: String, _ tail: [UInt8] = []) -> [UInt8] { Array(text.utf8) + tail }

    @Test("a known foreign format is named in the reason", arguments: foreign)
    func foreignFormat(bytes: [UInt8], reason: String) {
        let error = #expect(throws: ImageCodecError.self) { try ImageDecoder.decode(Data(bytes)) }
        #expect(error?.description == reason)
        #expect(error?.detail.contains("only JPEG and PNG are decoded") == true)
    }

    @Test("look-alikes are not taken for a foreign format", arguments: lookAlikes)
    func lookAlike(bytes: [UInt8]) {
        #expect(ForeignFormat(sniffing: bytes) == nil)
    }

    @Test("each codec error reads as a reason and keeps its detail", arguments: [
        (ImageCodecError.tooManyPixels(width: 20000, height: 10000, limit: 100_000_000),
         "The image is too large: 20000x10000 is 200 megapixels (the limit is 100)",
         "image is 20000x10000 (200 megapixels), over the limit of 100 megapixels"),
        (.corrupt(format: .png, reason: "IDAT: incorrect data check"),
         "The image is damaged (corrupt PNG)", "corrupt PNG: IDAT: incorrect data check"),
        (.corrupt(format: .png, reason: "Not enough image data"),
         "The image is cut short (truncated PNG)", "corrupt PNG: Not enough image data"),
        (.unsupported(format: .jpeg, reason: "Unsupported color conversion request"),
         "This kind of JPEG is not supported", "unsupported JPEG: Unsupported color conversion request"),
        (.encodingFailed(format: .png, reason: "out of memory"),
         "The image could not be written as PNG", "could not encode PNG: out of memory"),
        (.cancelled, "Cancelled", "cancelled"),
    ])
    func codecError(error: ImageCodecError, description: String, detail: String) {
        #expect(error.description == description)
        #expect(error.detail == detail)
    }
}
