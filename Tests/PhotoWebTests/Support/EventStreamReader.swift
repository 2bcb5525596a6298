import Foundation
#if canImport(Glibc)
import Glibc
import TestOrigin
#endif

/// Reads a server-sent event stream over a real socket, as a browser's EventSource does.
///
/// The test client reads whole bodies, so this one is its own: a thread reads the socket and
/// hands chunks to the test through a `ChunkInbox`; the chunked encoding is undone here. Every
/// wait ends at its deadline, and the socket is closed only after its thread has stopped reading.
final class EventStreamReader {
    struct Event {
        var id: UInt64?
        var name: String
        var data: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:] }
    }

    private(set) var status = 0
    private(set) var headers: [String: String] = [:]
    /// Comment lines seen (heartbeats).
    private(set) var comments: [String] = []
    /// The `retry:` value seen, in ms.
    private(set) var retry: Int?

    private let socket: SocketDescriptor
    private let chunks = ChunkInbox()
    private var raw: [UInt8] = []
    private var text = ""

    init(port: UInt16, target: String, headers extra: [String: String] = [:], timeout: Duration = .seconds(60)) async throws {
        let socket = SocketDescriptor(try await offThePool { () throws(TestFailure) in try Self.connectToLoopback(port: port) })
        self.socket = socket
        var request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
        for (name, value) in extra { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        _ = request.utf8CString.withUnsafeBufferPointer { send(socket.value, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }

        // The thread holds `socket` (and so keeps its number from being closed) until its last `recv`.
        let chunks = chunks
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = recv(socket.value, &buffer, buffer.count, 0)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                chunks.put(Array(buffer[..<count]))
            }
            chunks.finish()
        }
        try await readHead(before: ContinuousClock.now + timeout)
    }

    deinit {
        // Wakes the reading thread; the descriptor closes when that thread lets it go.
        socket.shutDown()
    }

    /// The next event (comments are collected, not returned), or nil when the stream ends.
    func next(timeout: Duration = .seconds(60)) async throws -> Event? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let event = takeEvent() { return event }
            // Checked here too: a stream that keeps sending chunks without the awaited event still ends the wait.
            guard ContinuousClock.now < deadline else { throw TestFailure("no event within \(timeout)") }
            guard try await readBody(before: deadline, waiting: "event within \(timeout)") else { return nil }
        }
    }

    /// Reads events until one satisfies `condition`, returning it.
    func next(where condition: (Event) -> Bool, timeout: Duration = .seconds(60)) async throws -> Event {
        let deadline = ContinuousClock.now + timeout
        while let event = try await next(timeout: deadline - ContinuousClock.now) {
            if ProcessInfo.processInfo.environment["SSE_DEBUG"] != nil { print("SSE", event.id ?? 0, event.name, event.data.prefix(160)) }
            if condition(event) { return event }
        }
        throw TestFailure("the stream ended before the awaited event")
    }

    /// Reads events until every row in `rows` has been reported filtered, in whatever order.
    func waitUntilFiltered(_ rows: ClosedRange<Int>, timeout: Duration = .seconds(60)) async throws {
        var waiting = Set(rows)
        let deadline = ContinuousClock.now + timeout
        while !waiting.isEmpty {
            let event = try await next(where: { $0.name == "photo" && $0.json["state"] as? String == "filtered" },
                                       timeout: deadline - ContinuousClock.now)
            if let index = event.json["index"] as? Int { waiting.remove(index) }
        }
    }

    /// Waits until a comment line (a heartbeat) arrives.
    func nextComment(timeout: Duration = .seconds(60)) async throws -> String {
        let seen = comments.count
        let deadline = ContinuousClock.now + timeout
        while comments.count == seen {
            if takeEvent() != nil { continue }
            guard ContinuousClock.now < deadline else { throw TestFailure("no heartbeat within \(timeout)") }
            guard try await readBody(before: deadline, waiting: "heartbeat within \(timeout)") else { throw TestFailure("the stream ended") }
        }
        return comments[seen]
    }

    // MARK: HTTP

    /// Appends the next chunk to `raw`; false at the end of the connection; throws at `deadline`.
    private func fill(before deadline: ContinuousClock.Instant, waiting awaited: String) async throws -> Bool {
        switch await chunks.take(before: deadline) {
        case .chunk(let chunk): raw += chunk; return true
        case .ended: return false
        case .timedOut: throw TestFailure("no \(awaited)")
        }
    }

    private func readHead(before deadline: ContinuousClock.Instant) async throws {
        while raw.firstRange(of: [13, 10, 13, 10]) == nil {
            guard try await fill(before: deadline, waiting: "response head in time") else {
                throw TestFailure("connection closed before the response head")
            }
        }
        let end = raw.firstRange(of: [13, 10, 13, 10])!
        let head = String(decoding: raw[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        raw.removeSubrange(..<end.upperBound)
        status = Int(head[0].split(separator: " ")[1]) ?? 0
        for line in head.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Moves the next chunk of the body into `text`; false at the end of the body.
    private func readBody(before deadline: ContinuousClock.Instant, waiting awaited: String) async throws -> Bool {
        guard headers["transfer-encoding"] == "chunked" else {
            if !raw.isEmpty { text += String(decoding: raw, as: UTF8.self); raw.removeAll(); return true }
            return try await fill(before: deadline, waiting: awaited)
        }
        while true {
            if let lineEnd = raw.firstRange(of: [13, 10]) {
                let size = Int(String(decoding: raw[..<lineEnd.lowerBound], as: UTF8.self), radix: 16) ?? 0
                if size == 0 { return false }
                if raw.count >= lineEnd.upperBound + size + 2 {
                    text += String(decoding: raw[lineEnd.upperBound..<(lineEnd.upperBound + size)], as: UTF8.self)
                    raw.removeSubrange(..<(lineEnd.upperBound + size + 2))
                    return true
                }
            }
            guard try await fill(before: deadline, waiting: awaited) else { return false }
        }
    }

    // MARK: SSE

    private func takeEvent() -> Event? {
        while let end = text.range(of: "\n\n") {
            let block = text[..<end.lowerBound]
            text.removeSubrange(..<end.upperBound)
            var event = Event(id: nil, name: "message", data: "")
            var isEvent = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") {
                    comments.append(line.dropFirst().trimmingCharacters(in: .whitespaces))
                    continue
                }
                let parts = line.split(separator: ":", maxSplits: 1)
                let field = String(parts.first ?? "")
                let value = parts.count > 1 ? String(parts[1].drop { $0 == " " }) : ""
                switch field {
                case "id": event.id = UInt64(value); isEvent = true
                case "event": event.name = value; isEvent = true
                case "data": event.data += value; isEvent = true
                case "retry": retry = Int(value)
                default: break
                }
            }
            if isEvent { return event }
        }
        return nil
    }
}

extension EventStreamReader {
    /// A TCP connection to 127.0.0.1:`port`, as a raw descriptor the caller closes.
    /// Blocks while the kernel connects: from async code, call it through `offThePool`.
    static func connectToLoopback(port: UInt16) throws(TestFailure) -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw TestFailure("cannot connect to 127.0.0.1:\(port): errno \(errno)")
        }
        return socket
    }
}
