import Hummingbird
import NIOCore

/// Hummingbird's per-request context, with the peer's address (for per-client limits).
struct PhotoRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let peer: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress
    }
}
