import Foundation
import HTTPTypes
import Hummingbird
import Locking
import NIOCore

/// What a response body's writer handed its connection, write by write.
final class BodyWrites: Sendable {
    private let bodies = Locked([String]())
    private let ended = Locked(false)
    private let counts: AsyncStream<Int>
    private let counted: AsyncStream<Int>.Continuation

    init() {
        (counts, counted) = AsyncStream.makeStream(of: Int.self)
    }

    func record(_ buffer: ByteBuffer) {
        let count = bodies.withLock { bodies in
            bodies.append(String(buffer: buffer))
            return bodies.count
        }
        counted.yield(count)
    }

    func finish() {
        ended.withLock { $0 = true }
    }

    var all: [String] { bodies.withLock { $0 } }

    var finished: Bool { ended.withLock { $0 } }

    /// The first `count` writes, once they have been made.
    func first(_ count: Int) async -> [String] {
        for await made in counts where made >= count { break }
        return Array(all.prefix(count))
    }
}

/// A response body writer that records each write apart, as a connection would get them.
struct RecordingBodyWriter: ResponseBodyWriter {
    let writes: BodyWrites

    mutating func write(_ buffer: ByteBuffer) async throws {
        writes.record(buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        writes.finish()
    }
}
