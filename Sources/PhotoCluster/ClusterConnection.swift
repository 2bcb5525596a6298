import Logging
import NIOCore
import PostgresNIO
import Locking
import Synchronization

/// One PostgreSQL session that is opened again, on the next query, after it was lost.
///
/// Queries made one after another from one thread run in that order on the session (postgres-nio
/// writes them to the one socket in turn): the cluster relies on it so that a result is written
/// before the claim on its work is given back. Callable from any thread; the `blocking` form never
/// from a NIO event loop.
final class ClusterConnection: Sendable {
    private enum Link {
        case closed
        case opening(EventLoopFuture<PostgresConnection>)
        case open(PostgresConnection)
    }

    private let address: DatabaseAddress
    private let eventLoop: any EventLoop
    private let logger: Logger
    private let link = Locked(Link.closed)
    private static let ids = Atomic(0)

    init(address: DatabaseAddress, eventLoop: any EventLoop, logger: Logger) {
        self.address = address
        self.eventLoop = eventLoop
        self.logger = logger
    }

    /// The open session, opening one when there is none (or it closed).
    func connection() -> EventLoopFuture<PostgresConnection> {
        enum Step { case use(PostgresConnection), wait(EventLoopFuture<PostgresConnection>), open(EventLoopPromise<PostgresConnection>) }
        let step = link.withLock { link -> Step in
            switch link {
            case .open(let connection) where !connection.isClosed: return .use(connection)
            case .opening(let future): return .wait(future)
            default:
                let promise = eventLoop.makePromise(of: PostgresConnection.self)
                link = .opening(promise.futureResult)
                return .open(promise)
            }
        }
        switch step {
        case .use(let connection): return eventLoop.makeSucceededFuture(connection)
        case .wait(let future): return future
        case .open(let promise):
            let id = Self.ids.wrappingAdd(1, ordering: .relaxed).newValue
            PostgresConnection.connect(on: eventLoop, configuration: address.configuration, id: id, logger: logger)
                .whenComplete { result in
                    self.link.withLock { link in
                        if case .success(let connection) = result { link = .open(connection) } else { link = .closed }
                    }
                    promise.completeWith(result)
                }
            return promise.futureResult
        }
    }

    /// Runs `query` on the session (opening it if needed) and collects its rows.
    func query(_ query: PostgresQuery) -> EventLoopFuture<[PostgresRow]> {
        connection().flatMap { [logger] connection in
            connection.query(query, logger: logger).map(\.rows)
        }
    }

    /// `query` waited for on the calling thread (an operation's or Dispatch's, never an event loop).
    func blocking(_ query: PostgresQuery) throws -> [PostgresRow] {
        try self.query(query).wait()
    }

    /// Closes the session.
    func close() {
        let open: PostgresConnection? = link.withLock { link in
            defer { link = .closed }
            if case .open(let connection) = link { return connection }
            return nil
        }
        guard let open else { return }
        // Kept until closed: postgres-nio insists that a connection is closed before it goes.
        open.close().whenComplete { _ in _ = open }
    }
}
