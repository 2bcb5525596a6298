/// A `Content-Range: bytes FIRST-LAST/TOTAL` field of a 206 response: where its body starts in the
/// whole resource, and the whole length when the origin knows it (`*` otherwise).
struct ContentRange: Equatable {
    /// Offset of the body's first byte in the whole resource.
    var start: Int64
    /// The whole resource's length, nil for `*`.
    var total: Int64?

    /// Parses the field; nil for any other form (a multipart answer, an unsatisfied `bytes */N`).
    init?(_ field: String) {
        let parts = field.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bytes" else { return nil }
        let spanAndTotal = parts[1].split(separator: "/", maxSplits: 1)
        let span = spanAndTotal[0].split(separator: "-", maxSplits: 1)
        guard spanAndTotal.count == 2, span.count == 2, let start = Int64(span[0]), let last = Int64(span[1]),
              start >= 0, last >= start else { return nil }
        self.start = start
        if spanAndTotal[1] == "*" {
            total = nil
        } else if let total = Int64(spanAndTotal[1]), total > last {
            self.total = total
        } else {
            return nil
        }
    }
}
