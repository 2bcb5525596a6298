import Foundation
import FlyingSocks

/// A response body sent at a fixed bandwidth, in slices of about 50 ms, like a slow network link.
struct ThrottledBody: AsyncBufferedSequence {
    typealias Element = UInt8

    let data: Data
    let bytesPerSecond: Int

    /// Bytes sent per slice: 50 ms worth, at least 4 KiB (sleeping much less than a millisecond is not precise).
    static func sliceSize(bytesPerSecond: Int) -> Int {
        Swift.max(4_096, bytesPerSecond / 20)
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(data: data, bytesPerSecond: Swift.max(1, bytesPerSecond))
    }

    struct Iterator: AsyncBufferedIteratorProtocol {
        let data: Data
        let bytesPerSecond: Int
        var offset = 0

        mutating func next() async throws -> UInt8? {
            try await nextBuffer(suggested: 1)?.first
        }

        mutating func nextBuffer(suggested count: Int) async throws -> Data? {
            guard offset < data.count else { return nil }
            let slice = Swift.min(count, ThrottledBody.sliceSize(bytesPerSecond: bytesPerSecond), data.count - offset)
            try await Task.sleep(for: .seconds(Double(slice) / Double(bytesPerSecond)))
            defer { offset += slice }
            return data.subdata(in: (data.startIndex + offset)..<(data.startIndex + offset + slice))
        }
    }
}
