import FlyingFox
import FlyingSocks
import Foundation

/// Reads a server-sent event stream over a real socket, as a browser's EventSource does.
final class EventStreamReader {
    struct Event: Equatable {
        var id: UInt64?
        var name: String
        var data: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:] }

        static func == (lhs: Event, rhs: Event) -> Bool { lhs.id == rhs.id && lhs.name == rhs.name && lhs.data == rhs.data }
    }

    let status: Int
    let headers: HTTPHeaders
    private var chunks: HTTPBodySequence.Iterator
    private var buffer = ""
    /// Owns the socket the body streams from: it closes when the reader goes.
    private let client: HTTPClient
    /// Comment lines seen (heartbeats).
    private(set) var comments: [String] = []
    /// The `retry:` value seen, in ms.
    private(set) var retry: Int?

    init(port: UInt16, target: String, headers: HTTPHeaders = [:]) async throws {
        var client = HTTPClient()
        let response = try await client.sendHTTPRequest(
            .make(.GET, target, headers: headers, port: port), to: try sockaddr_in.inet(ip4: "127.0.0.1", port: port))
        status = response.statusCode.code
        self.headers = response.headers
        guard case .httpBody(let body) = response.payload else { throw TestFailure("no body") }
        chunks = body.makeAsyncIterator()
        self.client = client
    }

    /// The next event (comments are collected, not returned), or nil when the stream ends.
    func next(timeout: Duration = .seconds(20)) async throws -> Event? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let event = takeEvent() { return event }
            guard ContinuousClock.now < deadline else { throw TestFailure("no event within \(timeout)") }
            guard let chunk = try await chunks.next() else { return nil }
            buffer += String(decoding: chunk, as: UTF8.self)
        }
    }

    /// Reads events until one satisfies `condition`, returning it.
    func next(where condition: (Event) -> Bool, timeout: Duration = .seconds(20)) async throws -> Event {
        let deadline = ContinuousClock.now + timeout
        while let event = try await next(timeout: deadline - ContinuousClock.now) {
            if condition(event) { return event }
        }
        throw TestFailure("the stream ended before the awaited event")
    }

    /// Waits until a comment line (a heartbeat) arrives.
    func nextComment(timeout: Duration = .seconds(20)) async throws -> String {
        let seen = comments.count
        let deadline = ContinuousClock.now + timeout
        while comments.count == seen {
            if takeEvent() != nil { continue }
            guard ContinuousClock.now < deadline else { throw TestFailure("no heartbeat within \(timeout)") }
            guard let chunk = try await chunks.next() else { throw TestFailure("the stream ended") }
            buffer += String(decoding: chunk, as: UTF8.self)
        }
        return comments[seen]
    }

    private func takeEvent() -> Event? {
        while let end = buffer.range(of: "\n\n") {
            let block = buffer[..<end.lowerBound]
            buffer.removeSubrange(..<end.upperBound)
            var event = Event(id: nil, name: "message", data: "")
            var isEvent = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") { comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces)); continue }
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
