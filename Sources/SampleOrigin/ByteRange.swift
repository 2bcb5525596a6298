import Foundation

/// One `Range: bytes=...` request, answered as nginx answers it: a single satisfiable range gives
/// 206 with `Content-Range`; one past the end gives 416; anything else (several ranges, another
/// unit, a malformed header) is ignored and the whole body sent.
enum ByteRange: Equatable {
    case whole
    case part(ClosedRange<Int>)
    case unsatisfiable

    init(header: String?, length: Int) {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { self = .whole; return }
        let spec = header.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let bounds = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard bounds.count == 2 else { self = .whole; return }
        switch (Int(bounds[0]), Int(bounds[1])) {
        case (let first?, nil) where bounds[1].isEmpty && first >= 0:
            self = first < length ? .part(first...(length - 1)) : .unsatisfiable
        case (let first?, let last?) where first >= 0 && first <= last:
            self = first < length ? .part(first...Swift.min(last, length - 1)) : .unsatisfiable
        case (nil, let suffix?) where bounds[0].isEmpty && suffix > 0:
            self = length > 0 ? .part(Swift.max(0, length - suffix)...(length - 1)) : .unsatisfiable
        default:
            self = .whole
        }
    }
}
