import Foundation
import HTTPTransfer
@testable import PhotoPipeline
import Testing

/// When the bytes of a download still arriving are worth a preview (issue 41, item 3): a handful of
/// times per photo whatever its origin sends, not once per 32 KB of a body without a length.
@Suite("Previews of the bytes arrived: how often, and when no more")
struct ArrivedBytesTests {
    /// Feeds `total` bytes arriving `read` at a time to `arrived`, taking whenever it wants, and
    /// reporting each take due a preview as a shown preview decoding `pixels` afresh, each other one as
    /// a decode ahead (final when `final(bytes)` says so). The takes due a preview, and all the takes.
    static func arrive(
        _ total: Int, read: Int = 16 * 1_024, expected: Int64? = nil, pixels: Int = 1_000_000,
        into arrived: inout ArrivedBytes, final: (Int) -> Bool = { _ in false }
    ) -> (previews: [Int], all: [Int]) {
        var takes: (previews: [Int], all: [Int]) = ([], [])
        for received in stride(from: read, through: total, by: read) {
            guard arrived.wants(TransferProgress(received: Int64(received), expected: expected)) else { continue }
            arrived.take(Data(count: received))
            takes.all.append(received)
            guard arrived.previewDue else {
                arrived.decoded(pixels: 0, final: final(received))
                continue
            }
            arrived.previewTaken()
            takes.previews.append(received)
            arrived.decoded(pixels: pixels, final: final(received))
            arrived.shown(last: false)
        }
        return takes
    }

    @Test func withoutALengthTheStepsGrowAndTheTakesAreCapped() {
        // Given 64 MB arriving 16 KB at a time with no Content-Length
        var arrived = ArrivedBytes()
        let takes = Self.arrive(64 * 1_024 * 1_024, into: &arrived)
        // Then the previews are few, and each step at least the bytes taken for the one before it
        #expect(takes.previews.count <= ArrivedBytes.maxAttempts)
        for (before, after) in zip(takes.previews, takes.previews.dropFirst()) where before >= 64 * 1_024 {
            #expect(after >= 2 * before - 16 * 1_024, "\(before) then \(after)")
        }
        // And the takes to decode ahead grow by a quarter at least: a few dozen for 64 MB
        #expect(takes.all.count <= 50, "\(takes.all.count) takes")
    }

    @Test func nothingMoreAfterTheDecodeThatReadTheEnd() {
        // Given a 300 KB JPEG followed by 8 MB of padding, with no Content-Length
        var arrived = ArrivedBytes()
        let takes = Self.arrive(300 * 1_024 + 8 * 1_024 * 1_024, into: &arrived) { $0 >= 300 * 1_024 }
        // Then the decode that read the end is the last one
        #expect(takes.all.filter { $0 >= 300 * 1_024 }.count == 1, "\(takes.all)")
    }

    @Test func aPhotoOfKnownLengthIsDecodedAheadEverySixteenthAndPreviewedAHandfulOfTimes() {
        // Given a 320 KB photo arriving 4 KB at a time, its length declared
        var arrived = ArrivedBytes()
        let takes = Self.arrive(320 * 1_024, read: 4 * 1_024, expected: 320 * 1_024, into: &arrived)
        // Then it is taken every 20 KB, so at most 20 KB are left to decode at the last byte
        #expect(takes.all.count <= 16 + takes.previews.count, "\(takes.all)")
        for (before, after) in zip([0] + takes.all, takes.all + [320 * 1_024]) {
            #expect(after - before <= 20 * 1_024, "\(before) then \(after)")
        }
        // And a preview is due at most every quarter once one has shown
        #expect(takes.previews.count <= 6, "\(takes.previews)")
    }

    @Test func aLargeImageGetsFewerDecodes() {
        // Given an image declaring 49 megapixels, 48 MB arriving with no Content-Length
        var arrived = ArrivedBytes()
        let takes = Self.arrive(48 * 1_024 * 1_024, pixels: 49_000_000, into: &arrived)
        // Then its previews decode at most the budget's worth of pixels, and one more decode
        #expect(takes.previews.count <= ArrivedBytes.pixelBudget / 49_000_000 + 1)
    }
}
