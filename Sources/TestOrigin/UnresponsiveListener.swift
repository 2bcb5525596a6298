import Glibc

/// A loopback port where connecting hangs, for connect-timeout tests: its listener's accept queue
/// is already full and never drained, so Linux drops further connection attempts.
public final class UnresponsiveListener: Sendable {
    /// The port whose connects hang.
    public let port: Int
    private let listener: Int32
    private let queued: Int32

    /// Binds 127.0.0.1 on an ephemeral port and fills its accept queue.
    public init() throws(SocketError) {
        // A backlog of 0 still queues one connection; making it here leaves no room for anyone else.
        (listener, port) = try Socket.listenOnLoopback(backlog: 0)
        do {
            queued = try Socket.connectToLoopback(port: port)
        } catch {
            close(listener)
            throw error
        }
    }

    deinit {
        close(queued)
        close(listener)
    }

    /// "http://127.0.0.1:PORT/path".
    public func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }
}
