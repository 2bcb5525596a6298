public import Logging
public import NIOCore
public import ServiceLifecycle

/// A Hummingbird application running in a service group of its own: started, its port known once
/// it listens, stopped gracefully with a cut-off. Runs the sample origin (`RunningOrigin`); `PhotoServer`
/// runs a group of several services (the HTTP servers, the list, ticks, signals) and stops them in order.
public final class RunningServer: Sendable {
    /// The port it listens on.
    public let port: Int
    private let services: ServiceGroup
    private let task: Task<Void, any Error>

    private init(port: Int, services: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.services = services
        self.task = task
    }

    /// Runs the service `make` builds (it gets the callback to pass as `onServerRunning`) and
    /// returns once it listens; throws why it could not.
    public static func start(
        logger: Logger, _ make: (@escaping @Sendable (any Channel) async -> Void) -> any Service
    ) async throws(StartFailure) -> RunningServer {
        let (running, announce) = AsyncStream<Int?>.makeStream()
        let service = make { channel in
            announce.yield(channel.localAddress?.port)
            announce.finish()
        }
        let services = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { announce.finish() }
            try await services.run()
        }
        var iterator = running.makeAsyncIterator()
        guard let announced = await iterator.next(), let port = announced else {
            do {
                try await task.value
                throw StartFailure(reason: "the server stopped at once")
            } catch let failure as StartFailure {
                throw failure
            } catch {
                throw StartFailure(reason: "\(error)")
            }
        }
        return RunningServer(port: port, services: services, task: task)
    }

    /// Stops accepting, lets open requests finish, and cuts off what is still open after `cutOff`
    /// (a client that never reads its response cannot hold the shutdown).
    public func stop(cutOff: Duration) async {
        await services.triggerGracefulShutdown()
        let task = task
        let cutting = Task {
            try await Task.sleep(for: cutOff)
            task.cancel()
        }
        _ = try? await task.value
        cutting.cancel()
    }

    /// Why a server did not start.
    public struct StartFailure: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }
}
