import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
@testable import PhotoServer
import PhotoWeb
@testable import SampleOrigin
import Testing

/// The sample origin answers `Range` as nginx does, so a cancelled download can resume.
@Suite("Sample origin: ranges")
struct SampleOriginRangeTests {
    @Test func aRangeGivesTheRestAndAChangedValidatorGivesTheWhole() async throws {
        var configuration = SampleOriginConfiguration(directory: WebHarness.sampleDirectory)
        configuration.photoCount = 3
        configuration.latency = .zero
        configuration.bandwidth = 100_000_000
        let origin = try await RunningOrigin.start(configuration)
        defer { Task { await origin.stop() } }
        let path = "/images/photo-000.jpg"
        func get(_ headers: HTTPFields) async throws -> TestClient.Response {
            try await TestClient.withClient(host: "127.0.0.1", port: Int(origin.port), configuration: .init(timeout: WebHarness.answerBound)) { client in
                try await client.get(path, headers: headers)
            }
        }
        let whole = try await get([:])
        #expect(whole.status == .ok)
        let bytes = try #require(whole.body).readableBytesView
        let tag = try #require(whole.headers[.eTag])
        #expect(whole.headers[.acceptRanges] == "bytes")

        let rest = try await get([.range: "bytes=1000-", .ifRange: tag])
        #expect(rest.status == .partialContent)
        #expect(rest.headers[.contentRange] == "bytes 1000-\(bytes.count - 1)/\(bytes.count)")
        #expect(Array(try #require(rest.body).readableBytesView) == Array(bytes.dropFirst(1000)))

        let stale = try await get([.range: "bytes=1000-", .ifRange: "\"another-version\""])
        #expect(stale.status == .ok)
        #expect(stale.body?.readableBytes == bytes.count)

        let past = try await get([.range: "bytes=\(bytes.count)-"])
        #expect(past.status == .rangeNotSatisfiable)
        #expect(try await get([.range: "bytes=0-1,5-9"]).status == .ok)
    }

    @Test(arguments: [
        ("bytes=0-", 10, ByteRange.part(0...9)),
        ("bytes=2-4", 10, .part(2...4)),
        ("bytes=8-100", 10, .part(8...9)),
        ("bytes=-3", 10, .part(7...9)),
        ("bytes=10-", 10, .unsatisfiable),
        ("bytes=4-2", 10, .whole),
        ("items=0-1", 10, .whole),
        ("bytes=0-1,3-4", 10, .whole),
        ("bytes=abc", 10, .whole),
    ])
    func rangeHeadersAreReadAsNginxReadsThem(header: String, length: Int, expected: ByteRange) {
        #expect(ByteRange(header: header, length: length) == expected)
    }
}
