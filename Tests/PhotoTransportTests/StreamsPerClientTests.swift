import NIOCore
import NIOEmbedded
import Logging
import Testing
@testable import PhotoTransport

/// HTTP/2 streams counted per client across its connections (`--streams-per-client`): each stream
/// (a channel) holds a place until it closes, a client is its `ConnectionsPerClient` key (an IPv6
/// /64 is one client, whichever of its connections a stream is on), a trusted proxy's are not counted.
@Suite("HTTP/2 streams per client")
struct StreamsPerClientTests {
    /// An open stream: an embedded channel whose close gives its place back.
    private func stream() -> EmbeddedChannel { EmbeddedChannel() }

    /// Closes `stream` and runs what its close future calls (the embedded loop runs it on `run()`).
    private func close(_ stream: EmbeddedChannel) throws {
        try stream.close().wait()
        stream.embeddedEventLoop.run()
    }

    /// The client key two connections from `addresses` are counted under.
    private func clients(_ addresses: String...) throws -> [String] {
        let connections = ConnectionsPerClient(limit: 100, trusted: try .init([]), logger: Logger(label: "test"))
        return try addresses.enumerated().map { index, address in
            guard case .counted(let client) = connections.admit(try SocketAddress(ipAddress: address, port: 1_000 + index)) else {
                throw CancellationError()
            }
            return client
        }
    }

    @Test func streamsOfOneClientCountTogetherAcrossItsConnectionsAndComeBackAsTheyClose() throws {
        let budget = StreamsPerClient(limit: 3)
        // Two connections of one IPv6 /64 (different addresses) and one of another /64
        let keys = try clients("2001:db8:1:2::1", "2001:db8:1:2::ffff", "2001:db8:1:3::1")
        #expect(keys[0] == keys[1] && keys[0] != keys[2])
        let first = [stream(), stream()], second = [stream(), stream()]
        #expect(first.map { budget.admit($0, client: keys[0]) } == [.admitted, .admitted])
        #expect(budget.admit(second[0], client: keys[1]) == .admitted)
        #expect(budget.admit(second[1], client: keys[1]) == .refused(refusedSoFar: 1))
        #expect(budget.open(for: keys[0]) == 3)
        // Another client has a budget of its own
        #expect(budget.admit(stream(), client: keys[2]) == .admitted)

        // A stream that closes gives its place back, once; a refused one had none to give
        try close(first[0])
        try close(second[1])
        #expect(budget.open(for: keys[0]) == 2)
        let next = stream()
        #expect(budget.admit(next, client: keys[1]) == .admitted)
        #expect(budget.admit(stream(), client: keys[0]) == .refused(refusedSoFar: 2))
        for channel in [first[1], second[0], next] { try close(channel) }
        #expect(budget.open(for: keys[0]) == 0)
        #expect(budget.refused == 2)
    }

    @Test func aTrustedProxysStreamsAreNotCounted() {
        let budget = StreamsPerClient(limit: 1)
        let streams = (0..<5).map { _ in stream() }
        #expect(streams.allSatisfy { budget.admit($0, client: nil) == .admitted })
        #expect(budget.refused == 0)
    }
}
