import FlyingSocks
import Foundation

/// The body of a `GET /events` response: one viewer's outbox written as server-sent events,
/// with a `retry` hint first and comment heartbeats while idle. Ends when the outbox closes
/// this stream (a newer connection, too much unread, shutdown).
struct ServerSentEventStream: AsyncBufferedSequence {
    typealias Element = UInt8

    let outbox: EventOutbox
    let generation: Int
    let retry: Duration

    func makeAsyncIterator() -> Iterator {
        Iterator(lease: Lease(outbox: outbox, generation: generation), retry: retry)
    }

    /// Detaches the stream from the outbox when FlyingFox drops the iterator: the client has gone.
    final class Lease: Sendable {
        let outbox: EventOutbox
        let generation: Int

        init(outbox: EventOutbox, generation: Int) {
            self.outbox = outbox
            self.generation = generation
        }

        deinit {
            outbox.detach(generation: generation)
        }
    }

    struct Iterator: AsyncBufferedIteratorProtocol {
        let lease: Lease
        let retry: Duration
        var sentPreamble = false

        mutating func next() async throws -> UInt8? {
            try await nextBuffer(suggested: 1)?.first
        }

        mutating func nextBuffer(suggested count: Int) async throws -> Data? {
            if !sentPreamble {
                sentPreamble = true
                let milliseconds = retry.components.seconds * 1_000 + retry.components.attoseconds / 1_000_000_000_000_000
                return Data("retry: \(milliseconds)\n\n".utf8)
            }
            switch await lease.outbox.next(generation: lease.generation) {
            case .event(let event): return event.encoded
            case .heartbeat: return Data(": ping\n\n".utf8)
            case nil: return nil
            }
        }
    }
}
