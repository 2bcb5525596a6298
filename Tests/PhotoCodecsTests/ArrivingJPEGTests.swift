import Foundation
import PhotoCodecs
import TestOrigin
import Testing

@Suite("A JPEG decoded while its bytes arrive: the same pixels as a one-shot decode, whatever the pieces")
struct ArrivingJPEGTests {
    static let jpegs = SampleJPEGs.made(seed: 23)

    /// The body's prefixes a download would hand over: pieces of uneven sizes, a few single bytes among them.
    static func prefixes(of data: Data, seed: Int) -> [Int] {
        var ends: [Int] = []
        var end = 0
        var step = seed
        while end < data.count {
            step = (step * 7_919 + 13) % 4_001
            end = min(data.count, end + (step % 5 == 0 ? 1 : 1 + step))
            ends.append(end)
        }
        return ends
    }

    /// Takes every prefix of `data` but the whole, then finishes with the whole.
    static func decodedAhead(_ data: Data, seed: Int, minimumHeight: Int = 80) throws -> PixelBuffer? {
        let arriving = ArrivingJPEG(minimumHeight: minimumHeight)
        for end in prefixes(of: data, seed: seed).dropLast() {
            _ = try arriving.take(data.prefix(end), image: end % 3 == 0)
        }
        return arriving.finish(data)
    }

    @Test(arguments: [true, false], [1, 2, 3])
    func aJPEGTakenInPiecesEndsAsTheOneShotDecode(progressive: Bool, seed: Int) async throws {
        let jpegs = await Self.jpegs.value
        let jpeg = progressive ? jpegs.progressive : jpegs.baseline
        let expected = try JPEGDecoder.decode(jpeg, minimumHeight: 80)
        let decoded = try #require(try Self.decodedAhead(jpeg, seed: seed))
        #expect(decoded == expected)
    }

    @Test(arguments: [6, 8])
    func anExifOrientationIsAppliedAsTheOneShotDecodeAppliesIt(orientation: Int) async throws {
        let jpeg = try EXIFFixture.quadrants(orientation: orientation)
        let expected = try JPEGDecoder.decode(jpeg, minimumHeight: 8)
        let decoded = try #require(try Self.decodedAhead(jpeg, seed: 4, minimumHeight: 8))
        #expect(decoded == expected)
    }

    @Test func aMarkerSkippedPastTheBytesHeldIsSkippedInTheBytesThatFollow() async throws {
        let jpegs = await Self.jpegs.value
        // Given a comment of 20 KB after the SOI, which libjpeg skips, arriving 1 KB at a time
        let comment: [UInt8] = [0xFF, 0xFE, 0x50, 0x02] + [UInt8](repeating: 0x41, count: 0x5002 - 2)
        let jpeg = jpegs.baseline.prefix(2) + Data(comment) + jpegs.baseline.dropFirst(2)
        let arriving = ArrivingJPEG(minimumHeight: 80)
        for end in stride(from: 1_024, to: jpeg.count, by: 1_024) {
            _ = try arriving.take(jpeg.prefix(end), image: false)
        }
        // Then it ends as the one-shot decode
        #expect(arriving.finish(jpeg) == (try JPEGDecoder.decode(jpeg, minimumHeight: 80)))
    }

    @Test func previewsTakenAlongTheWayAreThoseOfTheBytesArrived() async throws {
        let jpegs = await Self.jpegs.value
        let arriving = ArrivingJPEG(minimumHeight: 80)
        var scans = 0
        var sharper = 0
        for tenth in 1...9 {
            let prefix = jpegs.progressive.prefix(jpegs.progressive.count * tenth / 10)
            let taken = try #require(try arriving.take(prefix, image: true))
            let fresh = try #require(try JPEGDecoder.decodeArrived(prefix, minimumHeight: 80))
            #expect(taken.scans == fresh.scans)
            // A scan completed since the last: the pixels a decode of the prefix from its start shows
            // (between two, the last image stays: writing it again would only show what no preview keeps)
            if taken.scans > scans {
                #expect(taken.image == fresh.image)
                sharper += 1
            }
            scans = taken.scans
        }
        #expect(sharper >= 3)
        let half = jpegs.baseline.prefix(jpegs.baseline.count / 2)
        let baseline = ArrivingJPEG(minimumHeight: 80)
        _ = try baseline.take(jpegs.baseline.prefix(jpegs.baseline.count / 4), image: false)
        let taken = try #require(try baseline.take(half, image: true))
        let fresh = try #require(try JPEGDecoder.decodeArrived(half, minimumHeight: 80))
        #expect(taken.rowsReady == fresh.rowsReady && taken.rowsReady > 0 && taken.image == fresh.image)
    }

    @Test func aBodyThatEndsEarlyOrIsNotTheOneTakenGivesNothingToShowAsFinal() async throws {
        let jpegs = await Self.jpegs.value
        // A body cut short: the one-shot decode fails, and so the decode ahead gives nothing
        let cut = jpegs.baseline.prefix(jpegs.baseline.count - 500)
        let arriving = ArrivingJPEG(minimumHeight: 80)
        _ = try arriving.take(cut.prefix(cut.count / 2), image: false)
        #expect(arriving.finish(cut) == nil)
        #expect(throws: ImageCodecError.self) { try JPEGDecoder.decode(cut, minimumHeight: 80) }
        // Fewer bytes than were taken: not the body it took
        let restarted = ArrivingJPEG(minimumHeight: 80)
        _ = try restarted.take(jpegs.baseline.prefix(4_000), image: false)
        #expect(restarted.finish(jpegs.baseline.prefix(3_000)) == nil)
        // Nothing taken at all, or not a JPEG
        #expect(ArrivingJPEG(minimumHeight: 80).finish(Data([1, 2, 3])) == nil)
        // Nothing at all: no byte to read (the fuzzer's first input once crashed here)
        let empty = ArrivingJPEG(minimumHeight: 80)
        #expect(try empty.take(Data(), image: true) == nil)
        #expect(empty.finish(Data()) == nil)
    }

    @Test func corruptBytesFailTheDecodeAheadAndNeverCrash() async throws {
        let jpegs = await Self.jpegs.value
        for source in [jpegs.progressive, jpegs.baseline] {
            var damaged = Array(source)
            for offset in stride(from: 700, to: damaged.count, by: 89) { damaged[offset] ^= 0x5A }
            let data = Data(damaged)
            let arriving = ArrivingJPEG(minimumHeight: 40)
            var failed = false
            for end in Self.prefixes(of: data, seed: 9).dropLast() where !failed {
                do { _ = try arriving.take(data.prefix(end), image: true) } catch { failed = true }
            }
            let final = arriving.finish(data)
            // Either it failed along the way (and gives nothing at the end), or it agrees with the one-shot decode
            if failed {
                #expect(final == nil)
            } else if let final {
                #expect(final == (try JPEGDecoder.decode(data, minimumHeight: 40)))
            } else {
                #expect(throws: ImageCodecError.self) { try JPEGDecoder.decode(data, minimumHeight: 40) }
            }
        }
    }

    @Test func theRenderersThumbnailFromTheDecodeAheadIsTheSameImage() async throws {
        let jpegs = await Self.jpegs.value
        let renderer = SepiaRenderer()
        let arriving = ArrivingJPEG(minimumHeight: 80, limits: renderer.limits)
        _ = try renderer.arrivedDecode(of: jpegs.progressive.prefix(jpegs.progressive.count / 2), height: 80,
                                       continuing: arriving, preview: false)
        var asked = false
        let ahead = try renderer.thumbnail(of: jpegs.progressive, height: 80, decodedAhead: {
            asked = true
            return arriving.finish(jpegs.progressive)
        })
        #expect(asked)
        #expect(ahead.data == (try renderer.thumbnail(of: jpegs.progressive, height: 80)).data)
    }
}
