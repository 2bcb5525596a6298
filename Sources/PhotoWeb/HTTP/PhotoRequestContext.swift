import Hummingbird
import NIOCore

/// Hummingbird's per-request context, with the peer's address (for per-client limits) and the
/// connection (an event stream whose reader stalls is closed by closing it).
struct PhotoRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let peer: SocketAddress?
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress
        channel = source.channel
    }
}
