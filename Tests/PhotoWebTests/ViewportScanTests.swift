import Foundation
import PhotoCodecs
@testable import PhotoWeb
import Testing

/// A report's body read without `JSONDecoder` (`ViewportHandler.Body.scanned`): the shapes a page
/// sends are read as the decoder reads them, and nothing the decoder refuses or reads otherwise is
/// ever taken; thousands of mangled bodies included, none of which may trap.
@Suite("Viewport reports read in one pass")
struct ViewportScanTests {
    typealias Body = ViewportHandler.Body

    static let sent = [
        #"{"viewer":"v-1","scrolling":true}"#,
        #"{"viewer": "AbC_12-x", "scrolling": false, "first": 0, "last": 8}"#,
        #" { "scrolling" : false , "first" : 120 , "last" : 131 , "viewer" : "x" } "#,
        "{\"viewer\":\t\"x\",\r\n\"hidden\": true}",
        #"{"viewer": "x", "scrolling": false, "first": 3, "last": 9, "strategy": "prefetch", "prefetch": 12}"#,
        #"{"viewer": "x", "scrolling": true, "first": -0, "last": -5}"#,
        #"{}"#,
    ]

    static func decoded(_ text: [UInt8]) -> Body? {
        try? JSONDecoder().decode(Body.self, from: Data(text))
    }

    @Test func thePagesShapesAreReadAsTheDecoderReadsThem() throws {
        for text in Self.sent {
            let scanned = try #require(Body.scanned(Data(text.utf8)), "\(text)")
            #expect(scanned == Self.decoded(Array(text.utf8)), "\(text)")
        }
        let body = try #require(Body.scanned(Data(Self.sent[4].utf8)))
        #expect(body.viewer == "x" && body.scrolling == false && body.first == 3 && body.last == 9)
        #expect(body.strategy == "prefetch" && body.prefetch == 12 && body.hidden == nil)
    }

    @Test func whatItDoesNotReadIsLeftToTheDecoder() {
        let left = [
            #"{"viewer": "\u0078", "scrolling": true}"#, // an escape
            #"{"viewer": "é", "scrolling": true}"#, // not ASCII
            #"{"viewer": null, "scrolling": true}"#,
            #"{"viewer": "x", "scrolling": true, "showing": {"first": 1, "last": 2}}"#,
            #"{"viewer": "x", "other": 1}"#,
            #"{"viewer": "x", "viewer": "y"}"#,
            #"{"viewer": "x", "first": 1.0}"#, #"{"viewer": "x", "first": 1e2}"#, #"{"viewer": "x", "first": 01}"#,
            #"{"viewer": "x", "first": 1234567890123456789}"#, #"{"viewer": "x", "first": -}"#,
            #"{"viewer": "x", "scrolling": truex}"#, #"{"viewer": "x", "scrolling": 1}"#, #"{"first": "1"}"#,
            #"{"viewer": "x",}"#, #"{"viewer": "x"} x"#, #"{"viewer": "x""#, #"["viewer"]"#, "", " ", "{",
        ]
        for text in left {
            #expect(Body.scanned(Data(text.utf8)) == nil, "\(text)")
        }
    }

    @Test(arguments: [36, 38, 2026] as [UInt64])
    func noMangledBodyIsReadOtherwiseThanTheDecoderReadsIt(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        let alphabet = Array(#"{}[]":,.-+0123456789eE truefalsnvwrihdgp\"#.utf8) + [0x09, 0x0A, 0xC3, 0xA9, 0x00, 0x7F]
        var taken = 0
        for round in 0..<20_000 {
            var bytes = Array(Self.sent[round % Self.sent.count].utf8)
            for _ in 0...Int(generator.next() % 3) {
                let at = bytes.isEmpty ? 0 : Int(generator.next() % UInt64(bytes.count))
                let byte = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                switch generator.next() % 3 {
                case 0 where !bytes.isEmpty: bytes[at] = byte
                case 1 where !bytes.isEmpty: bytes.remove(at: at)
                default: bytes.insert(byte, at: at)
                }
            }
            // Then whatever it reads, the decoder reads the same
            guard let scanned = Body.scanned(Data(bytes)) else { continue }
            taken += 1
            #expect(scanned == Self.decoded(bytes), "seed \(seed): \(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(taken > 500, "seed \(seed): the mangling left too few bodies it reads to say anything")
    }
}
