import Foundation

extension ViewportHandler.Body {
    /// The shapes a page sends read in one pass over the bytes, without `JSONDecoder` (a crowd sends
    /// a report every 100 ms while it scrolls, and the decoder was most of a report's own cost):
    /// one flat object of the report's keys, each once, with their own types only — `viewer` and
    /// `strategy` printable-ASCII strings without escapes, `scrolling` and `hidden` true or false,
    /// `first`, `last` and `prefetch` whole numbers of up to 18 digits. Anything else (an escape, a
    /// `null`, `showing`, another key, a fraction, an exponent, a number too long, bytes after the
    /// object) is nil, and `decoded(from:)` reads the body as before, refusing it with its reason.
    /// Never accepts a body `JSONDecoder` refuses, nor reads it differently (`ViewportScanTests`).
    static func scanned(_ data: Data) -> Self? {
        data.withUnsafeBytes { bytes in
            var scanner = Scanner(bytes: bytes)
            return scanner.body()
        }
    }

    /// A cursor over the body's bytes; every read checks the end first.
    private struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var at = 0

        init(bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        /// The byte at the cursor, nil at the end.
        var current: UInt8? { at < bytes.count ? bytes[at] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { at += 1 }
        }

        /// Takes `byte` if it is next (after white space).
        mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard current == byte else { return false }
            at += 1
            return true
        }

        mutating func body() -> ViewportHandler.Body? {
            var body = ViewportHandler.Body()
            guard take(UInt8(ascii: "{")) else { return nil }
            if !take(UInt8(ascii: "}")) {
                repeat {
                    guard let key = string(), take(UInt8(ascii: ":")) else { return nil }
                    // A key whose field is set already comes twice: the decoder's, as any other key.
                    switch key {
                    case "viewer" where body.viewer == nil: guard let value = string() else { return nil }; body.viewer = value
                    case "strategy" where body.strategy == nil: guard let value = string() else { return nil }; body.strategy = value
                    case "scrolling" where body.scrolling == nil: guard let value = bool() else { return nil }; body.scrolling = value
                    case "hidden" where body.hidden == nil: guard let value = bool() else { return nil }; body.hidden = value
                    case "first" where body.first == nil: guard let value = integer() else { return nil }; body.first = value
                    case "last" where body.last == nil: guard let value = integer() else { return nil }; body.last = value
                    case "prefetch" where body.prefetch == nil: guard let value = integer() else { return nil }; body.prefetch = value
                    default: return nil
                    }
                } while take(UInt8(ascii: ","))
                guard take(UInt8(ascii: "}")) else { return nil }
            }
            skipSpace()
            return current == nil ? body : nil
        }

        /// A string of printable ASCII with no escape.
        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = at
            while let byte = current, byte != UInt8(ascii: "\"") {
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                at += 1
            }
            guard current != nil else { return nil }
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
            at += 1
            return text
        }

        mutating func bool() -> Bool? {
            skipSpace()
            if matches("true") {
                at += 4
                return true
            }
            if matches("false") {
                at += 5
                return false
            }
            return nil
        }

        /// Whether `word` is next, followed by a byte no literal or number goes on with.
        func matches(_ word: String) -> Bool {
            let end = at + word.utf8.count
            guard end <= bytes.count, word.utf8.elementsEqual(bytes[at..<end]) else { return false }
            return end == bytes.count || !Self.continuesAWord(bytes[end])
        }

        /// `-`? then `0` or up to 18 digits not starting with `0`, not followed by a fraction or an exponent.
        mutating func integer() -> Int? {
            skipSpace()
            let negative = current == UInt8(ascii: "-")
            if negative { at += 1 }
            let start = at
            var value = 0
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                guard at - start < 18 else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                at += 1
            }
            let digits = at - start
            guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
            if let byte = current, Self.continuesAWord(byte) { return nil }
            return negative ? -value : value
        }

        /// Bytes that would make a literal or a number something longer (a fraction, an exponent, letters).
        static func continuesAWord(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "_"):
                true
            default:
                false
            }
        }
    }
}
