import Foundation
import Glibc

/// A failed socket call while setting up a `TestOrigin`.
public struct SocketError: Error, CustomStringConvertible {
    /// The system call that failed.
    public let call: String
    /// Its errno.
    public let code: Int32

    /// "bind: Address already in use".
    public var description: String {
        "\(call): \(String(cString: strerror(code)))"
    }
}

/// A `TestOrigin` socket: set-up helpers, and one accepted connection used by its connection thread only.
struct Socket {
    let descriptor: Int32

    /// A listening socket on 127.0.0.1 with a port chosen by the system, and that port.
    static func listenOnLoopback(backlog: Int32 = 128) throws(SocketError) -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(UInt32(INADDR_LOOPBACK).bigEndian)
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 ? getsockname(descriptor, address, &length) : -1
            }
        }
        guard bound == 0, listen(descriptor, backlog) == 0 else {
            let error = SocketError(call: bound == 0 ? "listen" : "bind", code: errno)
            close(descriptor)
            throw error
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A socket connected to 127.0.0.1:`port`.
    static func connectToLoopback(port: Int) throws(SocketError) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(UInt32(INADDR_LOOPBACK).bigEndian)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = SocketError(call: "connect", code: errno)
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Reads the request head: its path without the query and its header fields (names lowercased),
    /// or nil if the client sent no valid request line.
    func readRequest() -> (path: String, headers: [String: String])? {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end = Array("\r\n\r\n".utf8)
        while head.count < 64 * 1024, !head.ends(with: end) {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            head += buffer[..<count]
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count == 3, parts[1].hasPrefix("/") else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (String(parts[1].prefix { $0 != "?" }), headers)
    }

    /// Sends the status line and `headers`, plus `Connection: close`; false if the client has gone.
    func sendHead(status: Int, headers: [String: String]) -> Bool {
        var head = "HTTP/1.1 \(status) \(Self.reasonPhrases[status] ?? "Status")\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            head += "\(name): \(value)\r\n"
        }
        head += "Connection: close\r\n\r\n"
        let bytes = Array(head.utf8)
        return send(bytes[...]) == bytes.count
    }

    /// Sends `bytes` and returns how many the socket took; fewer than all means the client has gone.
    func send(_ bytes: ArraySlice<UInt8>) -> Int {
        var sent = 0
        while sent < bytes.count {
            // MSG_NOSIGNAL: a client that went away must not kill the test process with SIGPIPE.
            let count = bytes.withUnsafeBytes { buffer in
                Glibc.send(descriptor, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            sent += count
        }
        return sent
    }

    /// Waits up to `timeout` (nil: forever) for the client to close the connection; true if it did.
    func waitForClose(timeout: Duration?) -> Bool {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let (seconds, attoseconds) = (deadline - .now).components
                guard seconds >= 0, seconds > 0 || attoseconds > 0 else { return false }
                milliseconds = Int32(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
            }
            var descriptor = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return ready < 0 }
            // Readable: either the end of the stream (or a reset), or stray bytes to discard.
            let count = buffer.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return true }
        }
    }

    private static let reasonPhrases: [Int: String] = [
        200: "OK", 206: "Partial Content", 301: "Moved Permanently", 302: "Found", 303: "See Other", 307: "Temporary Redirect",
        308: "Permanent Redirect", 400: "Bad Request", 403: "Forbidden", 404: "Not Found", 416: "Range Not Satisfiable",
        500: "Internal Server Error", 503: "Service Unavailable",
    ]
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}
