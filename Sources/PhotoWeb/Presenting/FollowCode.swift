/// What a follow link carries (`/?follow=CODE`): 128 random bits as 32 hex digits. It is not the
/// presenter's viewer id and grants nothing but watching: no route that drives a viewer takes it.
struct FollowCode: Hashable, Sendable, CustomStringConvertible {
    let rawValue: String

    /// A new, unguessable code.
    static func random() -> FollowCode {
        var generator = SystemRandomNumberGenerator()
        let bits = [generator.next(), generator.next()] as [UInt64]
        return FollowCode(rawValue: bits.map { word in
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined())
    }

    /// A code as a client sent it, or nil when it cannot be one (so nothing else is looked up with it).
    init?(parsing text: String) {
        guard text.utf8.count == 32, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        rawValue = text
    }

    private init(rawValue: String) {
        self.rawValue = rawValue
    }

    var description: String { rawValue }
}
