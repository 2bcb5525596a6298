import Foundation
import HTTPTransfer
import Testing
import TestOrigin

@Suite("TransferLoop: a 206 that does not continue the bytes held starts over", .timeLimit(.minutes(1)))
struct TransferLyingOriginTests {
    static let etag = "\"v1\""

    /// The origins that lie about a range: one whose `Content-Range` starts at 0 (with the whole
    /// file), not where the range asked; one that names no version (no ETag, no Last-Modified),
    /// so nothing says its bytes continue those held.
    static let liars: [(String, @Sendable (_ bytes: [UInt8]) -> TestOrigin.Behaviour)] = [
        ("Content-Range from 0", { .resource(bytes: $0, etag: etag, ranges: .fromStart) }),
        ("no validator", { .resource(bytes: $0, ranges: .ignoringIfRange) }),
    ]

    @Test("a lying 206 is dropped and the whole body asked for without a range", arguments: 0..<liars.count)
    func lyingRange(liar: Int) async throws {
        // Given the first half of a file held from a cancelled transfer of version `etag`
        let bytes = pattern(200_000, seed: 21 + liar)
        let held = ResumableData(data: Data(bytes[..<(bytes.count / 2)]), validator: .entityTag(Self.etag))
        let origin = try TestOrigin(routes: ["/photo.jpg": Self.liars[liar].1(bytes)])
        defer { origin.stop() }
        try await withLoop("test-lying-range") { (loop) async throws in

            // When it is resumed from an origin that answers the range with a lie
            var transfer = ObservedTransfer(loop, origin.url("/photo.jpg"), resumingFrom: held)
            let outcome = await transfer.outcome().outcome

            // Then the body is the file once, never the half held followed by what the lie sent
            #expect(try outcome.result.get() == Data(bytes), "\(Self.liars[liar].0)")
            #expect(outcome.resumedBytes == 0)
            _ = try await origin.waitUntilServed("/photo.jpg", times: 2)
            #expect(origin.served.map(\.status) == [206, 200])
            #expect(origin.served.map { $0.range != nil } == [true, false])
        }
    }
}
