import Synchronization
import Foundation
import HTTPTransfer
import Testing
import TestOrigin

@Suite("TransferLoop: bodies, statuses, redirects, URLs", .timeLimit(.minutes(1)))
struct TransferLoopTests {
    @Test("a 200 body arrives intact and progress ends at received == expected")
    func bodyArrivesIntact() async throws {
        // Given
        let bytes = pattern(300_000)
        let origin = try TestOrigin(routes: ["/photo.jpg": .body(contentType: "image/jpeg", bytes: bytes)])
        defer { origin.stop() }
        let loop = TransferLoop(name: "test-body")
        defer { loop.shutdown() }

        // When
        var transfer = ObservedTransfer(loop, origin.url("/photo.jpg"))
        let (result, _, progress) = await transfer.completion()

        // Then
        #expect(try result.get() == Data(bytes))
        #expect(progress.last == TransferProgress(received: 300_000, expected: 300_000))
        #expect(progress.last?.fraction == 1)
        #expect(progress.map(\.received) == progress.map(\.received).sorted())
        #expect(loop.activeTransfers == 0)
    }

    @Test("fetch returns the body")
    func fetchReturnsBody() async throws {
        let bytes = pattern(10_000, seed: 3)
        let origin = try TestOrigin(routes: ["/list.plist": .body(bytes: bytes)])
        defer { origin.stop() }
        let loop = TransferLoop(name: "test-fetch")
        defer { loop.shutdown() }

        #expect(try await loop.fetch(origin.url("/list.plist")) == Data(bytes))
    }

    @Test("an error status fails with that status", arguments: [403, 404, 500])
    func errorStatus(status: Int) async throws {
        // Given: an empty 403 (seen only when the transfer ends), the origin's 404 for an unknown path,
        // and a large 500 body (abandoned at its first bytes)
        let origin = try TestOrigin(routes: [
            "/403": .body(status: 403, bytes: []),
            "/500": .body(status: 500, bytes: pattern(1024 * 1024)),
        ])
        defer { origin.stop() }
        let loop = TransferLoop(name: "test-status")
        defer { loop.shutdown() }

        // Then
        await #expect(throws: TransferError.httpStatus(status)) {
            try await loop.fetch(origin.url("/\(status)"))
        }
    }

    @Test("a redirect to a non-http scheme is refused", arguments: ["file:///etc/passwd", "gopher://127.0.0.1:70/1"])
    func redirectToOtherSchemeRefused(target: String) async throws {
        let origin = try TestOrigin(routes: ["/escape": .redirect(location: target)])
        defer { origin.stop() }
        let loop = TransferLoop(name: "test-redirect-scheme")
        defer { loop.shutdown() }

        await #expect(throws: TransferError.redirectRefused(target)) {
            try await loop.fetch(origin.url("/escape"))
        }
    }

    @Test("a URL that is not http(s) fails before any network use",
          arguments: ["ftp://x", "not a url", "", "http://", "file:///etc/passwd", "gopher://127.0.0.1/", "HTTP//missing-colon"])
    func invalidURL(url: String) async {
        let loop = TransferLoop(name: "test-invalid-url")
        defer { loop.shutdown() }

        await #expect(throws: TransferError.invalidURL(url)) {
            try await loop.fetch(url)
        }
    }

    @Test("50 concurrent transfers on one loop all complete, overlapping in time")
    func manyConcurrentTransfers() async throws {
        // Given: 50 bodies that each take about 150 ms to drip out
        let count = 50
        let bodies = (0..<count).map { pattern(40_000, seed: $0) }
        var routes: [String: TestOrigin.Behaviour] = [:]
        for (index, bytes) in bodies.enumerated() {
            routes["/photo/\(index)"] = .slowBody(bytes: bytes, chunkSize: 10_000, delayPerChunk: .milliseconds(50))
        }
        let origin = try TestOrigin(routes: routes)
        defer { origin.stop() }
        let loop = TransferLoop(name: "test-concurrent")
        defer { loop.shutdown() }

        // When all start at once, each noting how many transfers the loop has in flight as bytes arrive
        let started = ContinuousClock.now
        let mostInFlight = Mutex(0)
        let results = Mutex([Int: Data]())
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for index in 0..<count {
                loop.start(
                    origin.url("/photo/\(index)"),
                    progress: { _ in mostInFlight.withLock { $0 = max($0, loop.activeTransfers) } },
                    completion: { result in
                        let finished = results.withLock { results in
                            results[index] = try? result.get()
                            return results.count
                        }
                        if finished == count { done.resume() }
                    })
            }
        }
        let elapsed = ContinuousClock.now - started

        // Then every body arrived intact, and the transfers ran side by side on the one thread
        // (one after another they would take 50 x 150 ms = 7.5 s)
        print("50 concurrent transfers took \(milliseconds(elapsed)) ms, at most \(mostInFlight.withLock { $0 }) in flight")
        let bodiesReceived = results.withLock { $0 }
        for index in 0..<count {
            #expect(bodiesReceived[index] == Data(bodies[index]))
        }
        #expect(mostInFlight.withLock { $0 } > count / 2)
        #expect(loop.activeTransfers == 0)
    }
}
