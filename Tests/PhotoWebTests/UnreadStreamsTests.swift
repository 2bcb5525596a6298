import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import PhotoWeb
import Testing
import PhotoServer
import TestOrigin

@Suite("Event streams nobody reads", .serialized, .timeLimit(.minutes(5)))
struct UnreadStreamsTests {
    @Test func streamsThatNeverReadWhileViewersExpireLeaveTheServerServing() async throws {
        try await WebHarness.with(configure: {
            $0.web.viewerIdleTimeout = .milliseconds(200)
            $0.web.maxViewers = 5_000
            // The production tick: every tick sends the changed totals to every stream.
            $0.web.tick = .milliseconds(250)
        }) { harness in
            // Given 200 viewers, each with an event stream it never reads, and more viewers that never
            // connect and so expire (dropIdle runs while the streams attach). The scale is the
            // release binary's, in Tests/hostile (2,000 streams): here, in a debug build beside the
            // other suites, a thousand made this one test the suite's long pole (70-80 s on a quiet
            // machine, past its 5 minutes beside a CPU hog) while the behaviour is the same at 200:
            // the tick writes to every stream, and a stream that is not read stops taking its writes.
            // (the viewers are made on one connection: as many connections opened and closed would
            // only measure the test's client on a machine short of CPU)
            var sockets: [Int32] = []
            defer { sockets.forEach { close($0) } }
            for _ in 0..<20 {
                // Ten streams, and a viewer that never connects
                for viewer in try await harness.newViewers(11).dropFirst() {
                    sockets.append(try await openUnreadStream(port: harness.application.port, viewer: viewer))
                }
            }

            // When a normal client opens its stream and asks for rows, so that events go to every stream
            let reader = try await harness.newViewer()
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(reader)")
            _ = try await stream.next { $0.name == "snapshot" }
            try await harness.report(reader, scrolling: false, rows: 0...5)

            // Then it is still served: its photos fill in, health, a viewport report and a thumbnail
            _ = try await stream.next { $0.name == "photo" && $0.json["index"] as? Int == 0 && $0.json["state"] as? String == "filtered" }
            #expect(try await harness.request(.GET, "/healthz").status == 200)
            try await harness.report(reader, scrolling: false, rows: 6...8)
            #expect(try await harness.request(.GET, "/photos/0/thumbnail").status == 200)
        }
    }

    /// Opens a connection, asks for `viewer`'s event stream, and never reads a byte of it.
    /// (Connecting blocks while the server's backlog is full: it runs on a thread of its own.)
    private func openUnreadStream(port: UInt16, viewer: String) async throws -> Int32 {
        let socket = try await offThePool { () throws(TestFailure) in try EventStreamReader.connectToLoopback(port: port) }
        // A small receive buffer, so the server's writes back up as they would for a stalled reader.
        var size: Int32 = 4096
        setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let request = "GET /events?viewer=\(viewer) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n"
        _ = request.utf8CString.withUnsafeBufferPointer { send(socket, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
        return socket
    }
}
