import Foundation
import HTTPTransfer
@testable import PhotoPipeline
import Testing

/// When the bytes of a download still arriving are worth a preview (issue 41, item 3): a handful of
/// times per photo whatever its origin sends, not once per 32 KB of a body without a length.
@Suite("Previews of the bytes arrived: how often, and when no more")
struct ArrivedBytesTests {
    /// Feeds `total` bytes arriving `read` at a time to `arrived`, taking whenever it wants and
    /// reporting each take as a shown preview of `pixels` (final when `final(bytes)` says so). The takes.
    static func arrive(
        _ total: Int, read: Int = 16 * 1_024, expected: Int64? = nil, pixels: Int = 1_000_000,
        into arrived: inout ArrivedBytes, final: (Int) -> Bool = { _ in false }
    ) -> [Int] {
        var takes: [Int] = []
        for received in stride(from: read, through: total, by: read) {
            guard arrived.wants(TransferProgress(received: Int64(received), expected: expected)) else { continue }
            arrived.take(Data(count: received))
            takes.append(received)
            arrived.decoded(pixels: pixels, final: final(received))
            arrived.shown(last: false)
        }
        return takes
    }

    @Test func withoutALengthTheStepsGrowAndTheTakesAreCapped() {
        // Given 64 MB arriving 16 KB at a time with no Content-Length
        var arrived = ArrivedBytes()
        let takes = Self.arrive(64 * 1_024 * 1_024, into: &arrived)
        // Then the takes are few, and each step at least the bytes taken before it
        #expect(takes.count <= ArrivedBytes.maxAttempts)
        for (before, after) in zip(takes, takes.dropFirst()) where before >= 64 * 1_024 {
            #expect(after >= 2 * before - 16 * 1_024, "\(before) then \(after)")
        }
    }

    @Test func nothingMoreAfterTheDecodeThatReadTheEnd() {
        // Given a 300 KB JPEG followed by 8 MB of padding, with no Content-Length
        var arrived = ArrivedBytes()
        let takes = Self.arrive(300 * 1_024 + 8 * 1_024 * 1_024, into: &arrived) { $0 >= 300 * 1_024 }
        // Then the decode that read the end is the last one
        #expect(takes.filter { $0 >= 300 * 1_024 }.count == 1, "\(takes)")
    }

    @Test func aLargeImageGetsFewerDecodes() {
        // Given an image declaring 49 megapixels, 48 MB arriving with no Content-Length
        var arrived = ArrivedBytes()
        let takes = Self.arrive(48 * 1_024 * 1_024, pixels: 49_000_000, into: &arrived)
        // Then its previews decode at most the budget's worth of pixels, and one more decode
        #expect(takes.count <= ArrivedBytes.pixelBudget / 49_000_000 + 1)
    }
}
