import Foundation
import Hummingbird
import NIOCore

/// A response body sent at a fixed bandwidth, in slices of about 10 ms, like a slow network link.
///
/// Slices are due on one schedule from the start (slice N leaves when N slices' worth of time has
/// passed), so a late wake-up is made up by the next slice instead of adding up. Small slices: a
/// link delivers its first bytes one latency after the request, not a whole 50 ms slice later, and
/// what a client does with the first bytes (a progressive JPEG's first scan) depends on when they come.
struct ThrottledBody: Sendable {
    let data: Data
    let bytesPerSecond: Int

    /// Bytes sent per slice: 10 ms worth, at least 4 KiB (sleeping much less than a millisecond is not precise).
    static func sliceSize(bytesPerSecond: Int) -> Int {
        Swift.max(4_096, bytesPerSecond / 100)
    }

    var responseBody: ResponseBody {
        ResponseBody(contentLength: data.count) { writer in
            let rate = Double(Swift.max(1, bytesPerSecond))
            let size = Self.sliceSize(bytesPerSecond: Swift.max(1, bytesPerSecond))
            let start = ContinuousClock.now
            var offset = 0
            while offset < data.count {
                let slice = Swift.min(size, data.count - offset)
                try await Task.sleep(until: start + .seconds(Double(offset + slice) / rate), clock: .continuous)
                try await writer.write(ByteBuffer(bytes: data[(data.startIndex + offset)..<(data.startIndex + offset + slice)]))
                offset += slice
            }
            try await writer.finish(nil)
        }
    }
}
