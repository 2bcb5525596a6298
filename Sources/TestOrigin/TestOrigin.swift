import Foundation
import Glibc
import Synchronization

/// A tiny HTTP/1.1 origin on 127.0.0.1 for tests: real sockets, an ephemeral port, an accept thread,
/// one thread per connection, and a scripted `Behaviour` per path. Every response closes its connection.
///
/// Call `stop()` when done: the threads keep the origin alive until then.
public final class TestOrigin: Sendable {
    /// What the origin does for one path.
    public enum Behaviour: Sendable {
        /// Answers with the whole body and its Content-Length.
        case body(status: Int = 200, contentType: String = "application/octet-stream", bytes: [UInt8], headers: [String: String] = [:])
        /// Declares `declaredLength`, sends `sendFirst` bytes, then nothing until the client closes or the origin stops.
        case stall(status: Int = 200, declaredLength: Int, sendFirst: Int)
        /// Redirects to `location` with an empty body.
        case redirect(status: Int = 302, location: String)
        /// Declares `declaredLength`, sends only `bytes`, then closes.
        case truncated(bytes: [UInt8], declaredLength: Int)
        /// Sends `bytes` with no Content-Length; closing the connection ends the body.
        case noContentLength(bytes: [UInt8])
        /// Declares the full length and sends each part only once `gate` lets it: the head, then
        /// the first `firstBytes` bytes, then the rest; stops as soon as the client goes away.
        case gated(status: Int = 200, bytes: [UInt8], firstBytes: Int, gate: OriginGate, headers: [String: String] = [:])
    }

    /// One finished connection.
    public struct Served: Sendable, Equatable {
        /// The request's path, without any query.
        public var path: String
        /// Body bytes handed to the socket.
        public var bytesSent: Int
        /// Body bytes the response declared or meant to send.
        public var bodyLength: Int
        /// Whether the client went away before the response was complete.
        public var clientClosedEarly: Bool
    }

    /// A wait for a request that did not happen in time.
    public struct WaitTimedOut: Error, CustomStringConvertible {
        /// What was waited for.
        public let description: String
    }

    private enum Milestone {
        case requested, served
    }

    private struct Waiter {
        let id: Int
        let path: String
        let milestone: Milestone
        let continuation: CheckedContinuation<Served?, any Error>
    }

    private struct State {
        var routes: [String: Behaviour]
        var requests: [String: Int] = [:]
        var served: [Served] = []
        var waiters: [Waiter] = []
        var lastWaiterID = 0
        var openConnections: Set<Int32> = []
        var isListening = true
        var isStopped = false
    }

    /// The port the origin listens on.
    public let port: Int
    private let listener: Int32
    private let state: Mutex<State>

    /// Binds 127.0.0.1 on an ephemeral port and starts serving `routes` (path -> behaviour).
    public init(routes: [String: Behaviour]) throws(SocketError) {
        (listener, port) = try Socket.listenOnLoopback()
        state = Mutex(State(routes: routes))
        Thread { [self] in acceptConnections() }.start()
    }

    /// "http://127.0.0.1:PORT/path"; `path` should start with "/".
    public func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }

    /// Sets or replaces the behaviour of `path`, for requests that start afterwards; any thread.
    public func setRoute(_ path: String, _ behaviour: Behaviour) {
        state.withLock { $0.routes[path] = behaviour }
    }

    /// Finished connections, in the order they finished.
    public var served: [Served] {
        state.withLock { $0.served }
    }

    /// How many requests for `path` have arrived (headers read).
    public func requestCount(_ path: String) -> Int {
        state.withLock { $0.requests[path, default: 0] }
    }

    /// Waits until a request for `path` has been served (its connection closed) and returns the first
    /// such record; throws `WaitTimedOut` after `timeout`.
    public func waitUntilServed(_ path: String, timeout: Duration = .seconds(10)) async throws -> Served {
        // A served wait always resumes with a record.
        try await wait(for: .served, path: path, timeout: timeout)!
    }

    /// Waits until a request for `path` has arrived (headers read); throws `WaitTimedOut` after `timeout`.
    public func waitUntilRequested(_ path: String, timeout: Duration = .seconds(10)) async throws {
        _ = try await wait(for: .requested, path: path, timeout: timeout)
    }

    /// Stops accepting, and ends open connections (a stalled response ends at once); idempotent, any thread.
    public func stop() {
        state.withLock { state in
            guard !state.isStopped else { return }
            state.isStopped = true
            // Under the lock, so that no descriptor is closed (and reused) between the snapshot and the shutdown.
            if state.isListening { shutdown(listener, Int32(SHUT_RDWR)) }
            for connection in state.openConnections { shutdown(connection, Int32(SHUT_RDWR)) }
        }
    }

    /// Whether `stop()` has been called.
    var isStopped: Bool {
        state.withLock { $0.isStopped }
    }

    private func wait(for milestone: Milestone, path: String, timeout: Duration) async throws -> Served? {
        try await withCheckedThrowingContinuation { continuation in
            let waiterID: Int? = state.withLock { state in
                let isReached = switch milestone {
                case .requested: state.requests[path, default: 0] > 0
                case .served: state.served.contains { $0.path == path }
                }
                guard !isReached else { return nil }
                state.lastWaiterID += 1
                state.waiters.append(Waiter(id: state.lastWaiterID, path: path, milestone: milestone, continuation: continuation))
                return state.lastWaiterID
            }
            guard let waiterID else {
                // Records are only ever appended, so the one found above is still there.
                continuation.resume(returning: served.first { $0.path == path })
                return
            }
            // A safety net only: waiters are resumed by the connection threads.
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout.dispatchInterval) { [self] in
                let expired = state.withLock { state in
                    state.waiters.firstIndex { $0.id == waiterID }.map { state.waiters.remove(at: $0) }
                }
                expired?.continuation.resume(throwing: WaitTimedOut(
                    description: "no request for \(path) was \(milestone) within \(timeout)"))
            }
        }
    }

    private func acceptConnections() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                break  // `stop()` shut the listener down
            }
            let isOpen = state.withLock { state in
                guard !state.isStopped else { return false }
                state.openConnections.insert(connection)
                return true
            }
            guard isOpen else {
                close(connection)
                continue
            }
            Thread { [self] in serve(Socket(descriptor: connection)) }.start()
        }
        state.withLock { state in
            state.isListening = false
            close(listener)
        }
    }

    private func serve(_ socket: Socket) {
        guard let path = socket.readRequestPath() else {
            finish(socket, record: nil)
            return
        }
        let (behaviour, waiters) = state.withLock { state in
            state.requests[path, default: 0] += 1
            return (state.routes[path], takeWaiters(.requested, path: path, from: &state))
        }
        for waiter in waiters { waiter.continuation.resume(returning: nil) }
        let notFound = Behaviour.body(status: 404, contentType: "text/plain", bytes: Array("no route for \(path)\n".utf8))
        finish(socket, record: respond(behaviour ?? notFound, to: path, on: socket))
    }

    /// Closes the connection, then publishes its record and wakes whoever waits for it.
    private func finish(_ socket: Socket, record: Served?) {
        let waiters = state.withLock { state in
            state.openConnections.remove(socket.descriptor)
            close(socket.descriptor)
            guard let record else { return [Waiter]() }
            state.served.append(record)
            return takeWaiters(.served, path: record.path, from: &state)
        }
        for waiter in waiters { waiter.continuation.resume(returning: record) }
    }

    private func takeWaiters(_ milestone: Milestone, path: String, from state: inout State) -> [Waiter] {
        let matching = state.waiters.filter { $0.milestone == milestone && $0.path == path }
        state.waiters.removeAll { $0.milestone == milestone && $0.path == path }
        return matching
    }
}

extension Duration {
    /// The duration as Dispatch counts time.
    fileprivate var dispatchInterval: DispatchTimeInterval {
        .nanoseconds(Int(components.seconds) * 1_000_000_000 + Int(components.attoseconds / 1_000_000_000))
    }
}
