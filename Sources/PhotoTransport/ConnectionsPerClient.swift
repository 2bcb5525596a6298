package import Logging
import Locking
import NIOCore
import Synchronization

/// Open connections per client address (`--connections-per-client`), so that one client cannot
/// hold every connection the server has: a browser uses at most six per server, but a script can
/// open thousands, each kept busy by reading slowly or by asking the lab for a 1,000 B/s
/// transfer. Past the limit a new connection from the same address is answered 429 and closed.
/// A trusted proxy's connections are not counted: they carry many clients.
///
/// Lock order: a leaf.
package final class ConnectionsPerClient: Sendable {
    /// What a new connection gets.
    enum Admission: Equatable {
        /// Counted against `address`: give it back with `release` when the connection closes.
        case counted(address: String)
        /// From a trusted proxy: not counted.
        case uncounted
        /// Over the limit: to be answered 429 and closed.
        case refused(address: String)
    }

    let limit: Int
    /// Connections an address may hold beyond `limit` now (a presentation's room behind it): asked,
    /// with no lock held, only for a connection past `limit`.
    private let beyond: @Sendable (String) -> Int
    private let trusted: ClientAddress.TrustedProxies
    private let open = Locked<[String: Int]>([:])
    private let refusals = Atomic<Int>(0)
    private let logger: Logger

    package init(limit: Int, trusted: ClientAddress.TrustedProxies, logger: Logger, beyond: @escaping @Sendable (String) -> Int = { _ in 0 }) {
        (self.limit, self.trusted, self.logger, self.beyond) = (limit, trusted, logger, beyond)
    }

    /// Takes a place for a connection from `peer`.
    func admit(_ peer: SocketAddress?) -> Admission {
        let peerAddress = ClientAddress.address(of: peer)
        if !trusted.isEmpty, trusted.contains(peerAddress) { return .uncounted }
        // An IPv6 /64 is one client, however many of its addresses it connects from.
        let address = ClientAddress.group(peerAddress)
        let take = { (most: Int) in
            self.open.withLock { open in
                let count = open[address, default: 0]
                guard count < most else { return false }
                open[address] = count + 1
                return true
            }
        }
        let admitted = take(limit) || take(limit + beyond(address))
        if admitted { return .counted(address: address) }
        // One line for the first refusal and every thousandth after it: a flood does not flood the log.
        let refused = refusals.add(1, ordering: .relaxed).newValue
        if refused % 1_000 == 1 {
            logger.warning("connection refused: too many from one client", metadata: [
                "client": "\(address)", "limit": "\(limit)", "refused so far": "\(refused)",
            ])
        }
        return .refused(address: address)
    }

    /// Gives back the place of a connection that `admit` counted.
    func release(_ address: String) {
        open.withLock { open in
            guard let count = open[address] else { return }
            open[address] = count > 1 ? count - 1 : nil
        }
    }

    /// Connections open now from `address` (counted ones).
    func openConnections(from address: String) -> Int {
        open.withLock { $0[address, default: 0] }
    }

    /// Connections refused since start.
    var refused: Int { refusals.load(ordering: .relaxed) }
}

/// In front of a refused connection: answers its first bytes with 429 and closes; a connection
/// that sends nothing is closed after `wait`.
final class TooManyConnectionsResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let limit: Int
    private let wait: TimeAmount
    private var answered = false
    private var deadline: Scheduled<Void>?

    init(limit: Int, wait: TimeAmount) {
        (self.limit, self.wait) = (limit, wait)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: wait) { loopBound.value.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Nothing reaches the parser: the request is not read, only answered.
        guard !answered else { return }
        answered = true
        RawAnswer.send(
            status: "429 Too Many Requests", headers: "retry-after: 1\r\n",
            error: "too many connections from your address: at most \(limit) at once; close some and try again", on: context)
    }
}
