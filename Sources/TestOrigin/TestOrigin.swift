import Foundation
import Glibc
import Locking

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
        /// Declares `declaredLength` and sends one byte every `interval` until the client goes away:
        /// an origin too slow to be of use that still never counts as stalled.
        case drip(declaredLength: Int, interval: Duration)
        /// Redirects to `location` with an empty body.
        case redirect(status: Int = 302, location: String)
        /// Declares `declaredLength`, sends only `bytes`, then closes.
        case truncated(bytes: [UInt8], declaredLength: Int)
        /// Sends `bytes` with no Content-Length; closing the connection ends the body.
        case noContentLength(bytes: [UInt8])
        /// Declares the full length and sends each part only once `gate` lets it: the head, then
        /// the first `firstBytes` bytes, then the rest; stops as soon as the client goes away.
        case gated(status: Int = 200, bytes: [UInt8], firstBytes: Int, gate: OriginGate, headers: [String: String] = [:])
        /// A file as nginx serves one: `ETag` and `Last-Modified` when given, and `Range: bytes=N-`
        /// answered `206` with `Content-Range` (`416` past the end) unless `If-Range` names another
        /// version; `ranges` scripts origins that do otherwise. With a `gate`, bytes of the file
        /// before `holdAt` go with `.firstBytes` and the rest with `.rest`, as in `.gated`.
        case resource(
            bytes: [UInt8], etag: String? = nil, lastModified: String? = nil, ranges: RangeHandling = .honoured,
            gate: OriginGate? = nil, holdAt: Int = 0)
    }

    /// How a `.resource` answers a `Range` request.
    public enum RangeHandling: Sendable {
        /// As nginx: the range, when `If-Range` (if sent) matches the current `ETag` or `Last-Modified`.
        case honoured
        /// Always the whole file with 200: an origin without range support.
        case ignored
        /// The range even when `If-Range` names another version: a broken origin that would mix versions.
        case ignoringIfRange
        /// A lying origin: a range request answered 206 with the whole file, its `Content-Range` starting at 0.
        case fromStart
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
        /// The response's status.
        public var status: Int = 200
        /// The request's `Range` and `If-Range` fields, as sent.
        public var range: String? = nil
        public var ifRange: String? = nil
        /// The request's place among every request this origin read, from 1 (records are published
        /// as connections close, which is not always the order the requests came in).
        public var arrival = 0
    }

    /// A wait for a request that did not happen in time.
    public struct WaitTimedOut: Error, CustomStringConvertible {
        /// What was waited for.
        public let description: String
    }

    private enum Milestone: Equatable, CustomStringConvertible {
        case requested
        /// The given number of requests served.
        case served(Int)

        var description: String {
            switch self {
            case .requested: "requested"
            case .served(let times): times == 1 ? "served" : "served \(times) times"
            }
        }
    }

    /// What a wait found when it began: its milestone already reached, or its place in the list.
    private enum Registration {
        case reached(Served?)
        case waiting(id: Int)
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
        var arrivals = 0
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
    private let state: Locked<State>

    /// Binds 127.0.0.1 on an ephemeral port and starts serving `routes` (path -> behaviour).
    public init(routes: [String: Behaviour]) throws(SocketError) {
        (listener, port) = try Socket.listenOnLoopback()
        state = Locked(State(routes: routes))
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

    /// Finished connections, in the order their requests came in.
    public var served: [Served] {
        state.withLock { $0.served }.sorted { $0.arrival < $1.arrival }
    }

    /// How many requests for `path` have arrived (headers read).
    public func requestCount(_ path: String) -> Int {
        state.withLock { $0.requests[path, default: 0] }
    }

    /// Waits until `times` requests for `path` have been served (their connections closed) and returns
    /// the record of the `times`-th; throws `WaitTimedOut` after `timeout`, only the failure bound (a
    /// wait returns when the milestone comes; on a machine short of CPU it can take tens of seconds).
    public func waitUntilServed(_ path: String, times: Int = 1, timeout: Duration = .seconds(60)) async throws -> Served {
        // A served wait always resumes with a record.
        try await wait(for: .served(times), path: path, timeout: timeout)!
    }

    /// Waits until a request for `path` has arrived (headers read); throws `WaitTimedOut` after `timeout`.
    public func waitUntilRequested(_ path: String, timeout: Duration = .seconds(60)) async throws {
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
            // One locked section: a record that lands between a check and the waiter's registration is not missed.
            let registration: Registration = state.withLock { state in
                switch milestone {
                case .requested where state.requests[path, default: 0] > 0:
                    return .reached(nil)
                case .served(let times) where state.served.count { $0.path == path } >= times:
                    return .reached(state.served.filter { $0.path == path }[times - 1])
                default:
                    state.lastWaiterID += 1
                    state.waiters.append(Waiter(id: state.lastWaiterID, path: path, milestone: milestone, continuation: continuation))
                    return .waiting(id: state.lastWaiterID)
                }
            }
            let waiterID: Int
            switch registration {
            case .reached(let served):
                continuation.resume(returning: served)
                return
            case .waiting(let id):
                waiterID = id
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
        guard let (path, headers) = socket.readRequest() else {
            finish(socket, record: nil)
            return
        }
        let (behaviour, waiters, arrival) = state.withLock { state in
            state.requests[path, default: 0] += 1
            state.arrivals += 1
            return (state.routes[path], takeWaiters(for: path, from: &state), state.arrivals)
        }
        for waiter in waiters { waiter.continuation.resume(returning: nil) }
        let notFound = Behaviour.body(status: 404, contentType: "text/plain", bytes: Array("no route for \(path)\n".utf8))
        var record = respond(behaviour ?? notFound, to: path, headers: headers, on: socket)
        record.range = headers["range"]
        record.ifRange = headers["if-range"]
        record.arrival = arrival
        finish(socket, record: record)
    }

    /// Closes the connection, then publishes its record and wakes whoever waits for it.
    private func finish(_ socket: Socket, record: Served?) {
        let waiters = state.withLock { state in
            state.openConnections.remove(socket.descriptor)
            close(socket.descriptor)
            guard let record else { return [Waiter]() }
            state.served.append(record)
            return takeWaiters(for: record.path, from: &state)
        }
        for waiter in waiters { waiter.continuation.resume(returning: waiter.milestone == .requested ? nil : record) }
    }

    /// The waiters for `path` whose milestone has been reached, removed from the list.
    private func takeWaiters(for path: String, from state: inout State) -> [Waiter] {
        let requests = state.requests[path, default: 0]
        let served = state.served.count { $0.path == path }
        let isReached = { (waiter: Waiter) in
            switch waiter.milestone {
            case .requested: waiter.path == path && requests > 0
            case .served(let times): waiter.path == path && served >= times
            }
        }
        let reached = state.waiters.filter(isReached)
        state.waiters.removeAll(where: isReached)
        return reached
    }
}

extension Duration {
    /// The duration as Dispatch counts time.
    fileprivate var dispatchInterval: DispatchTimeInterval {
        .nanoseconds(Int(components.seconds) * 1_000_000_000 + Int(components.attoseconds / 1_000_000_000))
    }
}
