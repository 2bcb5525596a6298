import Foundation
#if canImport(Glibc)
import Glibc
import TestOrigin
#endif

/// A plain TCP connection for requests no well-behaved client sends: oversized heads, bytes
/// dripped one at a time, malformed framing. Reads and sends block on a thread of their own (the
/// test awaits them), bounded by socket timeouts that are only the failure bound; each such thread
/// holds the descriptor, so it is closed only after the last of them returns.
final class RawConnection: Sendable {
    private let descriptor: SocketDescriptor

    init(port: UInt16) async throws {
        let socket = try await offThePool { () throws(TestFailure) in try EventStreamReader.connectToLoopback(port: port) }
        descriptor = SocketDescriptor(socket)
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        descriptor.shutDown()
    }

    /// Sends `bytes`; false when the server has closed the connection.
    /// (A send blocks while the server does not read: it runs on a thread of its own.)
    @discardableResult
    func send(_ bytes: some Collection<UInt8>) async -> Bool {
        let (array, descriptor) = (Array(bytes), descriptor)
        return await offThePool { () -> Bool in
            var offset = 0
            while offset < array.count {
                let sent = array[offset...].withUnsafeBytes { Glibc.send(descriptor.value, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    @discardableResult
    func send(_ text: String) async -> Bool { await send(Array(text.utf8)) }

    /// Everything the server sends until it closes the connection (or the failure bound passes).
    func readUntilClosed() async -> (text: String, closed: Bool) {
        let descriptor = descriptor
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 16_384)
                var closed = false
                while true {
                    let count = recv(descriptor.value, &buffer, buffer.count, 0)
                    if count == 0 { closed = true; break }
                    if count < 0 { closed = errno == ECONNRESET; break }
                    received += buffer[..<count]
                }
                continuation.resume(returning: (String(decoding: received, as: UTF8.self), closed))
            }
        }
    }

    /// The first response's status line and head, read until its blank line.
    func readHead() async -> String {
        let descriptor = descriptor
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var received: [UInt8] = []
                var byte: UInt8 = 0
                while recv(descriptor.value, &byte, 1, 0) == 1 {
                    received.append(byte)
                    if received.suffix(4) == [13, 10, 13, 10] { break }
                }
                continuation.resume(returning: String(decoding: received, as: UTF8.self))
            }
        }
    }
}
