import Foundation
import NIOCore
@testable import PhotoWeb
import TestOrigin
import Testing

/// A gzip member spliced from parts compressed ahead of time and stored text between them
/// (`GzipSplice`, issue 36) is what a real decompressor (gzip(1), which checks the CRC-32 and the
/// length) turns back into the same bytes.
@Suite("A gzip member spliced from deflated parts")
struct GzipSpliceTests {
    /// `data` through `gzip -dc`, or nil when gzip refuses it (a bad stream, CRC-32 or length).
    static func gunzip(_ data: Data) async throws -> String? {
        let run = try await ToolRun.run(URL(fileURLWithPath: "/usr/bin/gzip"), ["-dc"], input: data)
        return run.status == 0 ? run.text : nil
    }

    @Test func theChecksumIsCRC32AndCombinesAsZlibs() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        let (first, second) = (Array("The quick brown fox ".utf8), Array("jumps over the lazy dog".utf8))
        let whole = CRC32.checksum(first + second)
        #expect(CRC32.combine(CRC32.checksum(first), CRC32.checksum(second), secondCount: second.count) == whole)
        #expect(CRC32.checksum(second, continuing: CRC32.checksum(first)) == whole)
        #expect(CRC32.combine(whole, 0, secondCount: 0) == whole)
    }

    @Test func partsAndStoredTextDecompressToTheirBytesInOrder() async throws {
        // Given parts (one empty, one long and repetitive, one with multi-byte characters) and texts between
        let texts = ["<html><head>", "", String(repeating: "<li class=\"row\">a photo</li>\n", count: 2_000), "é ✓ 写真", "</html>"]
        let parts = try texts.map { text throws(APIError) in try DeflatedPart(text) }
        let between = ["viewer-1", String(repeating: "x", count: 70_000), "", "v-ü"]

        // When they are spliced into one member
        var member = GzipSplice(capacity: 0)
        var expected = ""
        for (index, part) in parts.enumerated() {
            if index > 0 {
                member.appendStored(between[index - 1])
                expected += between[index - 1]
            }
            member.append(part)
            expected += texts[index]
        }
        #expect(member.uncompressedCount == expected.utf8.count)
        let body = member.finish()

        // Then gzip takes it (its CRC-32 and length check out) and gives back the texts in order
        #expect(try await Self.gunzip(Data(body.readableBytesView)) == expected)
        #expect(parts[2].deflated.readableBytes < parts[2].count / 20, "the long part is compressed")
        #expect(body.readableBytes < expected.utf8.count - parts[2].count / 2)

        // And a member whose trailer is wrong is refused (the check is real)
        var broken = Data(body.readableBytesView)
        broken[broken.count - 5] ^= 0xFF
        #expect(try await Self.gunzip(broken) == nil)
    }
}
