import Foundation
import HTTPTransfer
import Testing
import TestOrigin

@Suite("TransferLoop: resuming a cancelled transfer", .timeLimit(.minutes(1)))
struct TransferResumeTests {
    static let size = 600_000
    static let half = 300_000
    static let version1 = "\"v1\""

    /// Starts a GET of `path` whose origin holds every byte past `half` until `gate` opens, cancels it
    /// once it holds at least 5/6 of that half, and returns its outcome.
    func cancelNearHalf(_ loop: TransferLoop, _ origin: TestOrigin, _ path: String) async throws -> TransferOutcome {
        var transfer = ObservedTransfer(loop, origin.url(path))
        let progress = await transfer.progress(atLeast: Int64(Self.half * 5 / 6))
        try #require(progress != nil, "the transfer ended before half of it had arrived")
        transfer.handle.cancel()
        let outcome = await transfer.outcome().outcome
        #expect(outcome.result == .failure(.cancelled))
        let served = try await origin.waitUntilServed(path)
        #expect(served.clientClosedEarly && served.bytesSent == Self.half)
        return outcome
    }

    /// A resource of `bytes` tagged `version1` whose origin holds everything past `half` until `gate` opens.
    static func held(_ bytes: [UInt8], by gate: OriginGate, ranges: TestOrigin.RangeHandling = .honoured) -> TestOrigin.Behaviour {
        gate.open(.firstBytes)
        return .resource(bytes: bytes, etag: version1, ranges: ranges, gate: gate, holdAt: half)
    }

    @Test("a cancelled transfer resumes with Range and If-Range, the origin sends only the rest, and the body is whole")
    func resumesWhereItStopped() async throws {
        // Given: a transfer cancelled near half way through a resource with an ETag
        let bytes = pattern(Self.size, seed: 1)
        let gate = OriginGate()
        let origin = try TestOrigin(routes: ["/photo.jpg": Self.held(bytes, by: gate)])
        defer { origin.stop() }
        try await withLoop("test-resume") { (loop) async throws in
            let cancelled = try await cancelNearHalf(loop, origin, "/photo.jpg")
            let partial = try #require(cancelled.resumableData)
            #expect(partial.validator == .entityTag(Self.version1))
            #expect(partial.data == Data(bytes.prefix(partial.data.count)))
            #expect(cancelled.fetchedBytes == partial.data.count)

            // When: it is started again from what it kept
            gate.openAll()
            var resumed = ObservedTransfer(loop, origin.url("/photo.jpg"), resumingFrom: partial)
            let (outcome, _, progress) = await resumed.outcome()

            // Then: the origin was asked for the rest of that version and sent only the rest
            let served = try await origin.waitUntilServed("/photo.jpg", times: 2)
            #expect(served.range == "bytes=\(partial.data.count)-")
            #expect(served.ifRange == Self.version1)
            #expect(served.status == 206)
            #expect(served.bytesSent == Self.size - partial.data.count)
            // And the body is byte for byte the uninterrupted one, its progress counted from the resumed bytes
            #expect(try outcome.result.get() == Data(bytes))
            #expect(outcome.resumedBytes == partial.data.count)
            #expect(outcome.fetchedBytes == Self.size - partial.data.count)
            #expect(progress.first.map { $0.resumedFrom == Int64(partial.data.count) && $0.received > $0.resumedFrom } == true)
            #expect(progress.last == TransferProgress(received: Int64(Self.size), expected: Int64(Self.size), resumedFrom: Int64(partial.data.count)))
        }
    }

    @Test("an origin that ignores Range sends the whole body again, and nothing is mixed")
    func originIgnoringRange() async throws {
        let bytes = pattern(Self.size, seed: 2)
        let gate = OriginGate()
        let origin = try TestOrigin(routes: ["/photo.jpg": Self.held(bytes, by: gate, ranges: .ignored)])
        defer { origin.stop() }
        try await withLoop("test-resume-ignored") { (loop) async throws in
            let partial = try #require(try await cancelNearHalf(loop, origin, "/photo.jpg").resumableData)

            gate.openAll()
            var resumed = ObservedTransfer(loop, origin.url("/photo.jpg"), resumingFrom: partial)
            let (outcome, _, progress) = await resumed.outcome()

            let served = try await origin.waitUntilServed("/photo.jpg", times: 2)
            #expect(served.range != nil && served.status == 200 && served.bytesSent == Self.size)
            #expect(try outcome.result.get() == Data(bytes))
            #expect(outcome.resumedBytes == 0)
            #expect(progress.allSatisfy { $0.resumedFrom == 0 })
        }
    }

    @Test("a resource changed since the cancel comes whole in its new version", arguments: [
        TestOrigin.RangeHandling.honoured,
        // A broken origin answers the range of the new version: the transfer notices and starts over.
        .ignoringIfRange,
    ])
    func changedResource(ranges: TestOrigin.RangeHandling) async throws {
        // Given: a cancelled transfer of version 1, and then the origin has version 2
        let gate = OriginGate()
        let origin = try TestOrigin(routes: ["/photo.jpg": Self.held(pattern(Self.size, seed: 3), by: gate)])
        defer { origin.stop() }
        try await withLoop("test-resume-changed") { (loop) async throws in
            let partial = try #require(try await cancelNearHalf(loop, origin, "/photo.jpg").resumableData)
            let version2 = pattern(Self.size + 1000, seed: 4)
            origin.setRoute("/photo.jpg", .resource(bytes: version2, etag: "\"v2\"", ranges: ranges))

            // When
            var resumed = ObservedTransfer(loop, origin.url("/photo.jpg"), resumingFrom: partial)
            let outcome = await resumed.outcome().outcome

            // Then: the body is version 2 whole, never version 1's start with version 2's end
            #expect(try outcome.result.get() == Data(version2))
            #expect(outcome.resumedBytes == 0)
            let requests = ranges == .honoured ? 2 : 3
            _ = try await origin.waitUntilServed("/photo.jpg", times: requests)
            #expect(origin.requestCount("/photo.jpg") == requests)
            // (The abandoned 206 may have fitted in the socket's buffer: it is told by its status, not by an early close.)
            let whole = try #require(origin.served.first { $0.status == 200 && $0.bytesSent == version2.count })
            if ranges == .ignoringIfRange {
                // The 206 of version 2 was abandoned and the transfer asked again, without a range
                #expect(origin.served.contains { $0.status == 206 })
                #expect(whole.range == nil)
            }
        }
    }

    @Test("Last-Modified is the validator when there is no strong ETag")
    func lastModifiedValidator() async throws {
        let bytes = pattern(Self.size, seed: 5)
        let date = "Wed, 21 Oct 2015 07:28:00 GMT"
        let gate = OriginGate()
        gate.open(.firstBytes)
        let origin = try TestOrigin(routes: [
            "/photo.jpg": .resource(bytes: bytes, etag: "W/\"weak\"", lastModified: date, gate: gate, holdAt: Self.half),
        ])
        defer { origin.stop() }
        try await withLoop("test-resume-date") { (loop) async throws in
            let partial = try #require(try await cancelNearHalf(loop, origin, "/photo.jpg").resumableData)
            #expect(partial.validator == .lastModified(date))

            gate.openAll()
            var resumed = ObservedTransfer(loop, origin.url("/photo.jpg"), resumingFrom: partial)
            let outcome = await resumed.outcome().outcome

            #expect(try outcome.result.get() == Data(bytes))
            #expect(outcome.resumedBytes == partial.data.count)
            #expect(try await origin.waitUntilServed("/photo.jpg", times: 2).ifRange == date)
        }
    }

    @Test("bytes without a validator are not kept: they could not be resumed safely")
    func noValidatorNoResumableData() async throws {
        let gate = OriginGate()
        gate.open(.firstBytes)
        let origin = try TestOrigin(routes: ["/photo.jpg": .resource(bytes: pattern(Self.size), gate: gate, holdAt: Self.half)])
        defer { origin.stop() }
        try await withLoop("test-resume-none") { (loop) async throws in
            #expect(try await cancelNearHalf(loop, origin, "/photo.jpg").resumableData == nil)
        }
    }

    @Test("resuming from every byte (416 from the origin) starts over and gets the body")
    func rangeNotSatisfiable() async throws {
        let bytes = pattern(50_000, seed: 6)
        let origin = try TestOrigin(routes: ["/photo.jpg": .resource(bytes: bytes, etag: Self.version1)])
        defer { origin.stop() }
        try await withLoop("test-resume-416") { (loop) async throws in
            let everything = ResumableData(data: Data(bytes), validator: .entityTag(Self.version1))
            var resumed = ObservedTransfer(loop, origin.url("/photo.jpg"), resumingFrom: everything)

            #expect(try await resumed.outcome().outcome.result.get() == Data(bytes))
            _ = try await origin.waitUntilServed("/photo.jpg", times: 2)
            #expect(origin.served.map(\.status).sorted() == [200, 416])
        }
    }

    @Test("a transfer cancelled before its response began hands back what it was resumed from")
    func cancelledBeforeTheResponse() async throws {
        let gate = OriginGate()
        let origin = try TestOrigin(routes: ["/photo.jpg": .resource(bytes: pattern(1000), etag: Self.version1, gate: gate)])
        defer { origin.stop() }
        try await withLoop("test-resume-early-cancel") { (loop) async throws in
            let partial = ResumableData(data: Data(pattern(400)), validator: .entityTag(Self.version1))
            var transfer = ObservedTransfer(loop, origin.url("/photo.jpg"), resumingFrom: partial)
            try await origin.waitUntilRequested("/photo.jpg")

            transfer.handle.cancel()

            let outcome = await transfer.outcome().outcome
            #expect(outcome.result == .failure(.cancelled))
            #expect(outcome.resumableData == partial)
        }
    }
}
