import Foundation
import FlyingSocks

/// A response body sent at a fixed bandwidth, in slices of about 50 ms, like a slow network link.
struct ThrottledBody: AsyncBufferedSequence {
    typealias Element = UInt8

    let data: Data
    let bytesPerSecond: Int

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
            let slice = Swift.min(count, Swift.max(1, bytesPerSecond / 20), data.count - offset)
            try await Task.sleep(for: .seconds(Double(slice) / Double(bytesPerSecond)))
            defer { offset += slice }
            return data.subdata(in: (data.startIndex + offset)..<(data.startIndex + offset + slice))
        }
    }
}
