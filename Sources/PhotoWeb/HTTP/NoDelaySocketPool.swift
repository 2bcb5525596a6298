import FlyingSocks
import Foundation

/// FlyingFox's socket pool with Nagle's algorithm turned off on every socket it waits for.
///
/// FlyingFox writes a response's head and body separately and never sets `TCP_NODELAY`, so a small
/// body waits for the client's delayed acknowledgement of the head: about 40 ms per response on
/// Linux, which capped thumbnail throughput at ~1,100 requests/s (BENCHMARKS.md). The option is
/// idempotent and cheap next to the wait it precedes.
struct NoDelaySocketPool: AsyncSocketPool {
    let base: any AsyncSocketPool

    func prepare() async throws {
        try await base.prepare()
    }

    func run() async throws {
        try await base.run()
    }

    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        try? socket.setValue(true, for: BoolSocketOption(level: Int32(IPPROTO_TCP), name: TCP_NODELAY))
        try await base.suspendSocket(socket, untilReadyFor: events)
    }
}
