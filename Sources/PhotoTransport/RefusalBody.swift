import Foundation

/// What a guard answers a refused request with: `{"error": reason}`, the API's error body, in
/// JSON written as the API writes it (one line, slashes unescaped).
enum RefusalBody {
    /// `{"error": reason}`, as bytes.
    static func json(_ reason: String) -> Data {
        struct Failure: Encodable { let error: String }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return (try? encoder.encode(Failure(error: reason))) ?? Data("{}".utf8)
    }
}
