package import Hummingbird
package import HummingbirdCore
package import Logging
package import NIOCore
import NIOHTTP2
import NIOSSL

/// HTTPS: TLS with the certificate store's current context (so a renewed certificate is used from
/// the next connection on), then, by ALPN, the guarded HTTP/1.1 channel or the guarded HTTP/2
/// connection. The connection counts against its client once, before the handshake.
package struct SecureHTTPChannel: ServerChildChannel, HTTPChannelHandler {
    package struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<NIONegotiatedHTTPVersion<GuardedHTTP1Channel.Value, GuardedHTTP2Connection.Value>>
        package let channel: any Channel
    }

    let http1: GuardedHTTP1Channel
    let http2: GuardedHTTP2Connection
    let certificates: CertificateStore
    package var responder: HTTPChannelHandler.Responder { http1.responder }

    /// Builds the server: HTTP/1.1 and HTTP/2 over TLS, with these limits, answering what `ready` has
    /// ready on the event loop (on each HTTP/2 stream too).
    package static func builder(
        _ limits: GuardedHTTP1Channel.Limits, maxConcurrentStreams: Int, streamsPerClient: Int, certificates: CertificateStore,
        ready: (any ReadyResponding)? = nil
    ) -> HTTPServerBuilder {
        // One budget for every connection of the server.
        let streamsPerClient = StreamsPerClient(limit: streamsPerClient)
        return HTTPServerBuilder { responder in
            let http1 = GuardedHTTP1Channel(responder: responder, limits: limits, ready: ready)
            return SecureHTTPChannel(
                http1: http1,
                http2: GuardedHTTP2Connection(http1: http1, maxConcurrentStreams: maxConcurrentStreams, streamsPerClient: streamsPerClient),
                certificates: certificates)
        }
    }

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let admission: ConnectionsPerClient.Admission
        do {
            admission = try http1.limits.admit(channel)
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: certificates.current))
            try channel.pipeline.syncOperations.addHandler(HandshakeDeadline(timeout: http1.limits.idleTimeout))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let (http1, http2) = (http1, http2)
        return channel.configureHTTP2AsyncSecureUpgrade { channel in
            http1.configure(channel: channel, logger: logger, admission: admission)
        } http2ConnectionInitializer: { channel in
            http2.configure(channel: channel, logger: logger, admission: admission)
        }.map { negotiated in
            Value(negotiated: negotiated, channel: channel)
        }
    }

    package func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case .http1_1(let connection): await http1.handle(value: connection, logger: logger)
            case .http2(let connection): await http2.handle(value: connection, logger: logger)
            }
        } catch {
            logger.debug("TLS connection ended before a protocol was agreed", metadata: ["error": "\(error)"])
        }
    }
}
