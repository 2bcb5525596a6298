import Locking

/// Work keyed by what it makes: a call for a key whose work is running waits for that work's result
/// instead of starting the same work again, so any number of requests for one full-size image cost
/// one render. The work runs in a task of its own: a caller that goes away does not cancel it for
/// the others.
///
/// Lock order: a leaf (the work runs outside the lock).
final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Flight {
        let task: Task<Value, any Error>
        var callers: Int
    }

    private let flights = Locked<[Key: Flight]>([:])

    /// The result of `work` for `key`: started now, or shared with the call already running it.
    func run(_ key: Key, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = flights.withLock { flights in
            if let flight = flights[key] {
                flights[key]?.callers += 1
                return flight.task
            }
            let task = Task { try await work() }
            flights[key] = Flight(task: task, callers: 1)
            return task
        }
        defer {
            flights.withLock { flights in
                guard let flight = flights[key], flight.task == task else { return }
                flights[key] = flight.callers > 1 ? Flight(task: task, callers: flight.callers - 1) : nil
            }
        }
        return try await task.value
    }

    /// Callers waiting for `key`'s work now (0 when none runs).
    func callers(of key: Key) -> Int {
        flights.withLock { $0[key]?.callers ?? 0 }
    }
}
