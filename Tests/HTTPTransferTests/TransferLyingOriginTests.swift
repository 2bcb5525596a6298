import Foundation
import HTTPTransfer
import Testing
import TestOrigin

@Suite("TransferLoop: a 206 that does not continue the bytes held starts over", .timeLimit(.minutes(1)))
struct TransferLyingOriginTests {
    static let etag = "\"v1\""

    /// The first half of `bytes`, as a cancelled transfer of version `etag` would have kept it.
    static func firstHalf(of bytes: [UInt8]) -> ResumableData {
        ResumableData(data: Data(bytes[..<(bytes.count / 2)]), validator: .entityTag(etag))
    }

    @Test("a 206 whose Content-Range starts at 0, not where the range asked, is dropped and the whole body asked for")
    func rangeFromTheStart() async throws {
        let bytes = pattern(200_000, seed: 21)
        let origin = try TestOrigin(routes: ["/photo.jpg": .resource(bytes: bytes, etag: Self.etag, ranges: .fromStart)])
        defer { origin.stop() }
        try await withLoop("test-lying-range") { (loop) async throws in

            var transfer = ObservedTransfer(loop, origin.url("/photo.jpg"), resumingFrom: Self.firstHalf(of: bytes))
            let outcome = await transfer.outcome().outcome

            // Then the body is the file once, never the half held followed by the whole file again
            #expect(try outcome.result.get() == Data(bytes))
            #expect(outcome.resumedBytes == 0)
            _ = try await origin.waitUntilServed("/photo.jpg", times: 2)
            #expect(origin.served.map(\.status) == [206, 200])
            #expect(origin.served.map { $0.range != nil } == [true, false])
        }
    }

    @Test("a 206 that names no version (no ETag, no Last-Modified) cannot be trusted to continue the bytes held")
    func rangeWithoutValidator() async throws {
        let bytes = pattern(200_000, seed: 22)
        let origin = try TestOrigin(routes: ["/photo.jpg": .resource(bytes: bytes, ranges: .ignoringIfRange)])
        defer { origin.stop() }
        try await withLoop("test-unnamed-range") { (loop) async throws in

            var transfer = ObservedTransfer(loop, origin.url("/photo.jpg"), resumingFrom: Self.firstHalf(of: bytes))
            let outcome = await transfer.outcome().outcome

            #expect(try outcome.result.get() == Data(bytes))
            #expect(outcome.resumedBytes == 0)
            _ = try await origin.waitUntilServed("/photo.jpg", times: 2)
            #expect(origin.served.map(\.status) == [206, 200])
        }
    }
}
