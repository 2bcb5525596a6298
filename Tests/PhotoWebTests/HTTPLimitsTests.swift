import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
@testable import PhotoWeb
import Testing
import PhotoServer
import TestOrigin
@testable import PhotoTransport

/// The limits a public demo URL needs, against the bare server on loopback: each refusal is the
/// right answer, and a normal request is served afterwards.
@Suite("HTTP limits", .serialized)
struct HTTPLimitsTests {
    @Test func anOversizedHeadIs431AndAnOversizedURLIs414AndTheServerCarriesOn() async throws {
        try await WebHarness.with(configure: { $0.web.maxHeaderBytes = 4_096; $0.web.maxURLLength = 1_024 }) { harness in
            let header = try await RawConnection(port: harness.application.port)
            await header.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 64 * 1024))\r\n\r\n")
            let headerAnswer = await header.readUntilClosed()
            #expect(headerAnswer.text.hasPrefix("HTTP/1.1 431"))
            #expect(headerAnswer.closed)

            let many = try await RawConnection(port: harness.application.port)
            await many.send("GET /healthz HTTP/1.1\r\nHost: x\r\n" + (0..<10_000).map { "X-\($0): 1\r\n" }.joined() + "\r\n")
            #expect(await many.readUntilClosed().text.hasPrefix("HTTP/1.1 431"))

            let url = try await RawConnection(port: harness.application.port)
            await url.send("GET /\(String(repeating: "a", count: 1024 * 1024)) HTTP/1.1\r\nHost: x\r\n\r\n")
            let urlAnswer = await url.readUntilClosed()
            #expect(urlAnswer.text.hasPrefix("HTTP/1.1 414"))
            #expect(urlAnswer.closed)

            #expect(try await harness.request(.GET, "/healthz").status == 200)
        }
    }

    @Test func aClientThatDripsItsHeadIsClosedButAnOpenEventStreamIsNot() async throws {
        try await WebHarness.with(configure: {
            $0.web.idleTimeout = .seconds(1)
            $0.web.heartbeatInterval = .milliseconds(200)
        }) { harness in
            let viewer = try await harness.newViewer()
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")

            // One header byte every 100 ms never completes a request: closed at the deadline,
            // although bytes keep coming.
            let drip = try await RawConnection(port: harness.application.port)
            let closed = Task.detached {
                await drip.readUntilClosed().closed
            }
            let dripping = Task.detached {
                for byte in "GET /healthz HTTP/1.1\r\nX-Slow: \(String(repeating: "a", count: 600))".utf8 {
                    guard await drip.send([byte]) else { return }
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
            #expect(await closed.value)
            dripping.cancel()

            // The stream has been open past the deadline (heartbeats every 200 ms count the time)
            // and still delivers.
            for _ in 0..<100 where stream.comments.count < 10 {
                _ = try? await stream.next(timeout: .milliseconds(500))
            }
            #expect(stream.comments.count >= 10)
            try await harness.report(viewer, scrolling: false, rows: 0...0)
            let filtered = try await stream.next { $0.name == "photo" && $0.json["state"] as? String == "filtered" }
            #expect(filtered.json["index"] as? Int == 0)
        }
    }

    @Test func headAnswersHeadersOnlyAndTextIsGzippedWhenAccepted() async throws {
        try await WebHarness.with { harness in
            let get = try await harness.request(.GET, "/static/app.js")
            let head = try await harness.request(.HEAD, "/static/app.js")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.headers[.contentLength] == String(get.body.count))
            #expect(get.headers[.date] != nil)

            let zipped = try await harness.request(.GET, "/api/photos", headers: [.acceptEncoding: "gzip, deflate"])
            #expect(zipped.headers[.contentEncoding] == "gzip")
            #expect(zipped.headers[.vary] == "Accept-Encoding")
            let plain = try await harness.request(.GET, "/api/photos")
            #expect(plain.headers[.contentEncoding] == nil)
            // The same document (JSON key order is not fixed between encodings).
            let inflated = try JSONSerialization.jsonObject(with: try await gunzip(zipped.body)) as? NSDictionary
            #expect(inflated == (try JSONSerialization.jsonObject(with: plain.body) as? NSDictionary))
            #expect(zipped.body.count < plain.body.count)
            let refused = try await harness.request(.GET, "/api/photos", headers: [.acceptEncoding: "gzip;q=0"])
            #expect(refused.headers[.contentEncoding] == nil)
        }
    }

    @Test func staticFilesAreVersionedByContentAndA304RepeatsItsValidators() async throws {
        try await WebHarness.with { harness in
            let version = harness.application.web.context.staticFiles.version
            let versioned = try await harness.request(.GET, "/static/v/\(version)/app.css")
            #expect(versioned.status == 200)
            #expect(versioned.headers[.cacheControl] == "public, max-age=31536000, immutable")
            let page = try await harness.request(.GET, "/")
            #expect(page.text.contains(version))

            let old = try await harness.request(.GET, "/static/v/0123456789ab/app.css")
            #expect(old.status == 200)
            #expect(old.headers[.cacheControl] == "no-cache")

            let tag = try #require(versioned.headers[.eTag])
            let again = try await harness.request(.GET, "/static/v/\(version)/app.css", headers: [.ifNoneMatch: tag])
            #expect(again.status == 304)
            #expect(again.headers[.eTag] == tag)
            #expect(again.headers[.cacheControl] == versioned.headers[.cacheControl])
            #expect(again.body.isEmpty)
        }
    }

    @Test func nothingOutsidePublicIsServedNotEvenThroughASymlink() async throws {
        let folder = NSTemporaryDirectory() + "classic-photos-public-" + UUID().uuidString
        let secret = NSTemporaryDirectory() + "classic-photos-secret-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder + "/js", withIntermediateDirectories: true)
        try Data("body{}".utf8).write(to: URL(fileURLWithPath: folder + "/app.css"))
        try Data("export {}".utf8).write(to: URL(fileURLWithPath: folder + "/js/list.js"))
        try Data("secret".utf8).write(to: URL(fileURLWithPath: secret))
        try FileManager.default.createSymbolicLink(atPath: folder + "/linked.css", withDestinationPath: secret)
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: secret)
        }
        try await WebHarness.with(configure: { $0.web.publicDirectory = folder }) { harness in
            #expect(try await harness.request(.GET, "/static/app.css").status == 200)
            #expect(try await harness.request(.GET, "/static/js/list.js").status == 200)
            for attack in [
                "/static/linked.css", "/static/..%2F..%2Fetc%2Fpasswd", "/static/%2e%2e/%2e%2e/etc/passwd",
                "/static/%252e%252e%252fPackage.swift", "/static//etc/passwd", "/static/js/..%5c..%5capp.css",
                "/static/v/x/..%2f..%2fetc%2fpasswd", "/static/.hidden", "/static/\(secret)",
            ] {
                let response = try await harness.request(.GET, attack)
                #expect(response.status == 404, "\(attack) answered \(response.status)")
                #expect(!response.text.contains("secret"))
            }
        }
    }

    @Test func newViewersAreRateLimitedPerClientAndOnlyATrustedProxyNamesTheClient() async throws {
        try await WebHarness.with(configure: { $0.web.viewersPerMinute = 3; $0.web.trustedProxies = ["127.0.0.0/8"] }) { harness in
            for _ in 0..<3 {
                #expect(try await harness.request(.POST, "/api/viewers").status == 201)
            }
            let refused = try await harness.request(.POST, "/api/viewers")
            #expect(refused.status == 429)
            #expect(Int(refused.headers[.retryAfter] ?? "") ?? 0 >= 1)
            #expect((refused.json["error"] as? String)?.contains("too many new viewers") == true)
            #expect(try await harness.request(.GET, "/").status == 429)
            // Another client behind the trusted proxy has its own allowance.
            let forwarded: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: "203.0.113.7"]
            #expect(try await harness.request(.POST, "/api/viewers", headers: forwarded).status == 201)
        }
        try await WebHarness.with(configure: { $0.web.viewersPerMinute = 1 }) { (harness) async throws in
            #expect(try await harness.request(.POST, "/api/viewers").status == 201)
            // Not trusted: a claimed address changes nothing.
            let forwarded: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: "203.0.113.8"]
            #expect(try await harness.request(.POST, "/api/viewers", headers: forwarded).status == 429)
        }
    }

    @Test func aRefusedPageLoadIsAPageSayingWhyAndWhenToTryAgain() async throws {
        try await WebHarness.with(configure: { $0.web.viewersPerMinute = 1 }) { harness in
            let browser: HTTPFields = [.accept: "text/html,application/xhtml+xml,*/*;q=0.8"]
            #expect(try await harness.request(.GET, "/?row=5", headers: browser).status == 200)
            // Given a client past its new viewers for the minute, when a browser loads the page again
            let refused = try await harness.request(.GET, "/?row=5", headers: browser)
            // Then it gets a page, not the API's JSON: the reason, the wait, and a way to try again
            #expect(refused.status == 429)
            #expect(refused.headers[.contentType]?.hasPrefix("text/html") == true)
            let seconds = try #require(Int(refused.headers[.retryAfter] ?? ""))
            #expect(seconds >= 1)
            #expect(refused.text.contains("too many new viewers"))
            #expect(refused.text.contains("<meta http-equiv=\"refresh\" content=\"\(seconds)\">"))
            #expect(refused.text.contains("href=\"/?row=5\""))
            // A client that does not ask for HTML still gets the API's JSON error.
            let api = try await harness.request(.GET, "/")
            #expect(api.status == 429)
            #expect((api.json["error"] as? String)?.contains("too many new viewers") == true)
        }
    }

    @Test func itListensOnIPv6() async throws {
        try await WebHarness.with(configure: { $0.web.host = "::1" }) { harness in
            let response = try await harness.request(.GET, "/healthz", host: "::1")
            #expect(response.status == 200)
        }
    }

    @Test func malformedFramingIsRefusedAndNothingAfterItIsRun() async throws {
        try await WebHarness.with { harness in
            let smuggle = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
            for framing in [
                "POST /api/viewport HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                "POST /api/viewport HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}",
                "POST /api/viewport HTTP/1.1\r\nHost: x\r\nContent-Length: +2\r\n\r\n{}",
                "POST /api/viewport HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
                "POST /api/viewport HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
            ] {
                let connection = try await RawConnection(port: harness.application.port)
                await connection.send(framing + smuggle)
                let answer = await connection.readUntilClosed()
                #expect(answer.closed)
                let statuses = answer.text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0.prefix(3)) }
                #expect(statuses.count == 1, "\(framing.debugDescription) got \(statuses)")
                #expect(statuses.first == "400" || statuses.first == "501", "\(framing.debugDescription) got \(statuses)")
            }
            #expect(try await harness.request(.GET, "/healthz").status == 200)
        }
    }
}

/// Inflates a gzip body with the system's zlib (through `gzip -dc`), independent of the server's.
func gunzip(_ data: Data) async throws -> Data {
    try await ToolRun.run(URL(fileURLWithPath: "/bin/gzip"), ["-dc"], input: data).output
}

/// `--connections-per-client`: one address holds at most so many connections; past them it is
/// answered 429 and closed, and a place frees when one of its connections closes.
@Suite("Connections per client", .serialized)
struct ConnectionsPerClientTests {
    private static let healthz = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"

    /// Opens `count` keep-alive connections, each answered once (so the server has counted it).
    private func held(_ count: Int, port: UInt16) async throws -> [RawConnection] {
        var connections: [RawConnection] = []
        for _ in 0..<count {
            let connection = try await RawConnection(port: port)
            await connection.send(Self.healthz)
            #expect(await connection.readHead().hasPrefix("HTTP/1.1 200"))
            connections.append(connection)
        }
        return connections
    }

    @Test func pastTheLimitANewConnectionIsAnswered429UntilOneOfTheOthersCloses() async throws {
        try await WebHarness.with(configure: { $0.web.connectionsPerClient = 3 }) { harness in
            let connections = harness.application.web.connections
            var open = try await held(3, port: harness.application.port)
            #expect(connections.openConnections(from: "127.0.0.1") == 3)

            let fourth = try await RawConnection(port: harness.application.port)
            await fourth.send(Self.healthz)
            let answer = await fourth.readUntilClosed()
            #expect(answer.text.hasPrefix("HTTP/1.1 429"))
            #expect(answer.text.contains(#"{"error":"too many connections from your address: at most 3 at once"#))
            #expect(answer.text.lowercased().contains("retry-after: 1"))
            #expect(answer.closed)
            #expect(connections.refused == 1)
            #expect(connections.openConnections(from: "127.0.0.1") == 3)

            // One closes: its place is given back when the server sees the close.
            open.removeLast()
            for _ in 0..<500 where connections.openConnections(from: "127.0.0.1") > 2 {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(connections.openConnections(from: "127.0.0.1") == 2)
            #expect(try await harness.request(.GET, "/healthz").status == 200)
            #expect(open.count == 2)
        }
    }

    @Test func aTrustedProxysConnectionsAreNotCounted() async throws {
        try await WebHarness.with(configure: {
            $0.web.connectionsPerClient = 1
            $0.web.trustedProxies = ["127.0.0.0/8"]
        }) { harness in
            let open = try await held(3, port: harness.application.port)
            #expect(harness.application.web.connections.openConnections(from: "127.0.0.1") == 0)
            #expect(harness.application.web.connections.refused == 0)
            #expect(open.count == 3)
        }
    }

    @Test func addressesAreCountedApartAndAMappedIPv4AddressIsItsIPv4Self() throws {
        let connections = ConnectionsPerClient(limit: 2, trusted: try .init(["10.9.0.0/16"]), logger: .init(label: "test"))
        let a = try SocketAddress(ipAddress: "192.0.2.1", port: 1000)
        let mapped = try SocketAddress(ipAddress: "::ffff:192.0.2.1", port: 1001)
        let b = try SocketAddress(ipAddress: "2001:db8::1", port: 1002)
        #expect(connections.admit(a) == .counted(address: "192.0.2.1"))
        #expect(connections.admit(mapped) == .counted(address: "192.0.2.1"))
        #expect(connections.admit(a) == .refused(address: "192.0.2.1"))
        // An IPv6 client is its /64 (issue 41): a second address of it is the same client
        #expect(connections.admit(b) == .counted(address: "2001:db8:0:0::/64"))
        #expect(connections.admit(try SocketAddress(ipAddress: "2001:db8::2:1", port: 1003)) == .counted(address: "2001:db8:0:0::/64"))
        #expect(connections.admit(try SocketAddress(ipAddress: "2001:db8::3", port: 1004)) == .refused(address: "2001:db8:0:0::/64"))
        #expect(connections.admit(try SocketAddress(ipAddress: "2001:db8:0:1::1", port: 1005)) == .counted(address: "2001:db8:0:1::/64"))
        #expect(connections.admit(try SocketAddress(ipAddress: "10.9.3.4", port: 1)) == .uncounted)
        connections.release("192.0.2.1")
        #expect(connections.openConnections(from: "192.0.2.1") == 1)
        #expect(connections.admit(mapped) == .counted(address: "192.0.2.1"))
        #expect(connections.refused == 2)
    }
}

/// The send deadline (`--send-timeout`) on a channel whose writability the test sets: the kernel
/// buffers of a loopback connection take a whole sample photo, so a real reader cannot be made to
/// stall on one.
@Suite("Send timeout")
struct SendTimeoutTests {
    private func channel(sendTimeout: TimeAmount) throws -> (EmbeddedChannel, EmbeddedEventLoop) {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(
            handler: RequestDeadlineGuard(idleTimeout: .hours(1), sendTimeout: sendTimeout, progress: RequestProgress()),
            loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, loop)
    }

    @Test func aConnectionUnwritableForTheSendTimeoutIsClosed() throws {
        let (channel, loop) = try channel(sendTimeout: .seconds(60))
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        loop.advanceTime(by: .seconds(59))
        #expect(channel.isActive, "closed before the send timeout")
        loop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive, "a reader that took nothing for 60 s kept its connection")
    }

    @Test func aReaderThatTakesItsBytesInTimeKeepsItsConnection() throws {
        let (channel, loop) = try channel(sendTimeout: .seconds(60))
        for _ in 0..<5 {
            channel.isWritable = false
            channel.pipeline.fireChannelWritabilityChanged()
            loop.advanceTime(by: .seconds(50))
            channel.isWritable = true
            channel.pipeline.fireChannelWritabilityChanged()
        }
        loop.advanceTime(by: .seconds(120))
        #expect(channel.isActive, "a reader that drained the buffers every 50 s was cut off")
        _ = try channel.finish()
    }
}

/// The idle deadline counts from the connection's last idle moment, however many requests came
/// before: one check is scheduled and looks again when it comes, not one per request.
@Suite("Idle deadline")
struct IdleDeadlineTests {
    private func channel(idleTimeout: TimeAmount) throws -> (EmbeddedChannel, EmbeddedEventLoop) {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(
            handler: RequestDeadlineGuard(idleTimeout: idleTimeout, sendTimeout: .hours(1), progress: RequestProgress()),
            loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, loop)
    }

    /// One request read and answered.
    private func exchange(on channel: EmbeddedChannel) throws {
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "a", path: "/healthz")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        while try channel.readInbound(as: HTTPRequestPart.self) != nil {}
        while try channel.readOutbound(as: HTTPResponsePart.self) != nil {}
    }

    @Test func aConnectionIsClosedIdleTimeoutAfterItsLastAnswerNotItsFirst() throws {
        let (channel, loop) = try channel(idleTimeout: .seconds(10))
        // Requests every 6 s keep it: each answer starts the idle time again
        for _ in 0..<4 {
            loop.advanceTime(by: .seconds(6))
            try exchange(on: channel)
        }
        loop.advanceTime(by: .seconds(9))
        #expect(channel.isActive, "closed 9 s after its last answer, with a 10 s idle deadline")
        loop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive, "idle 10 s after its last answer and still open")
    }

    @Test func aRequestInFlightPastTheDeadlineIsNotCut() throws {
        let (channel, loop) = try channel(idleTimeout: .seconds(10))
        // A request read, its answer taking 30 s (the router's own time, not idleness)
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "a", path: "/slow")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        loop.advanceTime(by: .seconds(30))
        #expect(channel.isActive, "a request being answered was cut by the idle deadline")
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        loop.advanceTime(by: .seconds(10))
        #expect(!channel.isActive, "idle 10 s after the answer and still open")
    }
}
