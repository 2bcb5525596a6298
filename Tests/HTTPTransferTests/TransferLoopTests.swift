import Locking
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
        try await withLoop("test-body") { (loop) async throws in

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
    }

    @Test("fetch returns the body")
    func fetchReturnsBody() async throws {
        let bytes = pattern(10_000, seed: 3)
        let origin = try TestOrigin(routes: ["/list.plist": .body(bytes: bytes)])
        defer { origin.stop() }
        try await withLoop("test-fetch") { (loop) async throws in

            #expect(try await loop.fetch(origin.url("/list.plist"), limits: .onLoopback) == Data(bytes))
        }
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
        try await withLoop("test-status") { (loop) async throws in

            // Then
            await #expect(throws: TransferError.httpStatus(status)) {
                try await loop.fetch(origin.url("/\(status)"), limits: .onLoopback)
            }
        }
    }

    @Test("a redirect to a non-http scheme is refused", arguments: ["file:///etc/passwd", "gopher://127.0.0.1:70/1"])
    func redirectToOtherSchemeRefused(target: String) async throws {
        let origin = try TestOrigin(routes: ["/escape": .redirect(location: target)])
        defer { origin.stop() }
        try await withLoop("test-redirect-scheme") { (loop) async throws in

            await #expect(throws: TransferError.redirectRefused(target)) {
                try await loop.fetch(origin.url("/escape"), limits: .onLoopback)
            }
        }
    }

    @Test("a URL that is not http(s) fails before any network use",
          arguments: ["ftp://x", "not a url", "", "http://", "file:///etc/passwd", "gopher://127.0.0.1/", "HTTP//missing-colon"])
    func invalidURL(url: String) async throws {
        try await withLoop("test-invalid-url") { (loop) async throws in

            await #expect(throws: TransferError.invalidURL(url)) {
                try await loop.fetch(url, limits: .onLoopback)
            }
        }
    }

    @Test("50 concurrent transfers on one loop are all in flight at once, and all complete")
    func manyConcurrentTransfers() async throws {
        // Given: 50 bodies whose origin sends their first bytes and holds the rest until told
        let count = 50
        let bodies = (0..<count).map { pattern(40_000, seed: $0) }
        let gate = OriginGate()
        gate.open(.firstBytes)
        var routes: [String: TestOrigin.Behaviour] = [:]
        for (index, bytes) in bodies.enumerated() {
            routes["/photo/\(index)"] = .gated(bytes: bytes, firstBytes: 1000, gate: gate)
        }
        let origin = try TestOrigin(routes: routes)
        defer { origin.stop() }
        try await withLoop("test-concurrent") { (loop) async throws in

            // When all start at once
            let (firstBytes, firstBytesArrived) = AsyncStream.makeStream(of: Void.self)
            let results = Locked([Int: Data]())
            let (finished, finish) = AsyncStream.makeStream(of: Void.self)
            let started = Locked(Set<Int>())
            for index in 0..<count {
                loop.start(
                    origin.url("/photo/\(index)"), limits: .onLoopback,
                    progress: { progress in
                        guard progress.received > 0, started.withLock({ $0.insert(index).inserted }) else { return }
                        firstBytesArrived.yield()
                    },
                    completion: { result in
                        let done = results.withLock { results in
                            results[index] = try? result.get()
                            return results.count
                        }
                        if done == count { finish.finish() }
                    })
            }

            // Then every one of them has received bytes while none has completed: all in flight on the
            // one loop thread at the same time
            var withBytes = 0
            for await _ in firstBytes {
                withBytes += 1
                if withBytes == count { break }
            }
            #expect(results.withLock { $0.isEmpty })
            #expect(loop.activeTransfers == count)

            // And once the origin sends the rest, every body arrives intact
            gate.openAll()
            for await _ in finished {}
            let bodiesReceived = results.withLock { $0 }
            for index in 0..<count {
                #expect(bodiesReceived[index] == Data(bodies[index]))
            }
            #expect(loop.activeTransfers == 0)
        }
    }
}
