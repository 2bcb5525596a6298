import Foundation
import HTTPTransfer
import PhotoPipeline
import PhotoServer
import TestOrigin
import Testing

extension WebHarness {
    /// Runs `body` against a fresh server whose list is `photos` (name -> path on `origin`), the origin
    /// allowed as an operator allows one (`--allow-source-host`) and its held transfers never failed as
    /// stalled (a test's gate holds them as long as it needs).
    static func with(
        origin: TestOrigin, photos: [String: String], configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (WebHarness) async throws -> Void
    ) async throws {
        let source = NSTemporaryDirectory() + "classic-photos-source-\(UUID().uuidString).json"
        try JSONSerialization.data(withJSONObject: photos.mapValues { origin.url($0) }).write(to: URL(fileURLWithPath: source))
        defer { try? FileManager.default.removeItem(atPath: source) }
        try await with(configure: {
            $0.source = source
            $0.pipeline.transferLimits.allowedSources = AllowedSources(entries: [AllowedSources.Entry(origin: origin.url("/"))!])
            $0.pipeline.transferLimits.lowSpeedTime = .seconds(3_600)
            configure(&$0)
        }, body)
    }
}

extension WebHarness {
    /// Returns once a request waits for a thumbnail on its way (the moment a test lets its origin's held
    /// bytes go), failing with `what` after `limit`.
    func untilAThumbnailIsAwaited(_ what: Comment, within limit: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + limit
        while pipeline.thumbnailsAwaited == 0 {
            try #require(ContinuousClock.now < deadline, what)
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

extension WebHarness {
    /// Runs `body` against a fresh server whose list is one photo, `photo`'s bytes, whose origin sends
    /// the first half and holds the rest until the test opens `gate` (`.rest`), with a viewer that has
    /// it on screen and that viewer's event stream.
    static func withHalfHeldPhoto(
        _ photo: [UInt8], _ body: (WebHarness, OriginGate, EventStreamReader) async throws -> Void
    ) async throws {
        let gate = OriginGate()
        gate.open(.firstBytes)
        let origin = try TestOrigin(routes: ["/p0.jpg": .gated(bytes: photo, firstBytes: photo.count / 2, gate: gate)])
        defer { gate.openAll(); origin.stop() }
        try await with(origin: origin, photos: ["p0": "/p0.jpg"]) { harness in
            let viewer = try await harness.newViewer()
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            try await harness.report(viewer, scrolling: false, rows: 0...0)
            try await body(harness, gate, stream)
        }
    }
}
