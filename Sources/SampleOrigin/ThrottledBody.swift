import Foundation
import Hummingbird
import NIOCore

/// A response body sent at a fixed bandwidth, in slices of about 50 ms, like a slow network link.
struct ThrottledBody: Sendable {
    let data: Data
    let bytesPerSecond: Int

    /// Bytes sent per slice: 50 ms worth, at least 4 KiB (sleeping much less than a millisecond is not precise).
    static func sliceSize(bytesPerSecond: Int) -> Int {
        Swift.max(4_096, bytesPerSecond / 20)
    }

    var responseBody: ResponseBody {
        ResponseBody(contentLength: data.count) { writer in
            let rate = Swift.max(1, bytesPerSecond)
            let size = Self.sliceSize(bytesPerSecond: rate)
            var offset = 0
            while offset < data.count {
                let slice = Swift.min(size, data.count - offset)
                try await Task.sleep(for: .seconds(Double(slice) / Double(rate)))
                try await writer.write(ByteBuffer(bytes: data[(data.startIndex + offset)..<(data.startIndex + offset + slice)]))
                offset += slice
            }
            try await writer.finish(nil)
        }
    }
}
