import Foundation
import HTTPTransfer
import Locking
import Testing
import TestOrigin

/// What a watcher of the bytes arrived is handed (issue 41, item 7): views of the transfer's own
/// body, not copies of it at every progress report (four 48 MB bodies on screen cost 13 s of CPU so).
@Suite("Transfer: the bytes arrived, without copying them", .timeLimit(.minutes(1)))
struct TransferArrivedBytesTests {
    /// One take: where its bytes live, and the bytes.
    struct Take: Sendable {
        let address: UInt
        let data: Data
    }

    /// Starts a GET of `url` whose watcher takes the bytes at every progress report; its takes and body.
    private func fetchTakingEveryReport(_ loop: TransferLoop, _ url: String) async throws -> (takes: [Take], body: Data) {
        let takes = Locked<[Take]>([])
        let watcher = ArrivedBytesWatcher(wants: { _ in true }) { data in
            let address = data.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
            takes.withLock { $0.append(Take(address: address, data: data)) }
        }
        let outcome = await withCheckedContinuation { continuation in
            loop.start(url, limits: .onLoopback, resumingFrom: nil, arrived: watcher) { continuation.resume(returning: $0) }
        }
        return (takes.withLock { $0 }, try outcome.result.get())
    }

    @Test("with a declared length, every take and the body are one buffer: nothing is copied")
    func declaredLengthIsNeverCopied() async throws {
        // Given an 8 MB body with its Content-Length (a progress report at each 1%)
        let bytes = pattern(8 * 1_024 * 1_024, seed: 5)
        let origin = try TestOrigin(routes: ["/big.jpg": .body(contentType: "image/jpeg", bytes: bytes)])
        defer { origin.stop() }
        try await withLoop("test-arrived-declared") { (loop) async throws in
            // When a watcher takes the bytes at every report
            let (takes, body) = try await fetchTakingEveryReport(loop, origin.url("/big.jpg"))

            // Then each take shows the body's own storage, and still holds the body's first bytes
            #expect(body == Data(bytes))
            #expect(takes.count >= 10, "a report at each 1% of the body")
            let bodyAddress = body.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
            #expect(Set(takes.map(\.address)) == [bodyAddress], "\(Set(takes.map(\.address)).count) buffers for \(takes.count) takes")
            for take in takes {
                #expect(take.data == body.prefix(take.data.count))
            }
        }
    }

    @Test("without a declared length, the buffer doubles: a handful of buffers, and each take keeps its bytes")
    func undeclaredLengthGrowsGeometrically() async throws {
        // Given an 8 MB body sent without a Content-Length
        let bytes = pattern(8 * 1_024 * 1_024, seed: 6)
        let origin = try TestOrigin(routes: ["/big.jpg": .noContentLength(bytes: bytes)])
        defer { origin.stop() }
        try await withLoop("test-arrived-undeclared") { (loop) async throws in
            // When a watcher takes the bytes at every report
            let (takes, body) = try await fetchTakingEveryReport(loop, origin.url("/big.jpg"))

            // Then the takes share at most one buffer per doubling from 16 KB to 8 MB, and growing it
            // never changed the bytes an earlier take shows
            #expect(body == Data(bytes))
            #expect(Set(takes.map(\.address)).count <= 10)
            for take in takes {
                #expect(take.data == body.prefix(take.data.count))
            }
        }
    }
}
