import Foundation
import PhotoCodecs
import PhotoPipeline
import PhotoServer
@testable import PhotoWeb
import TestOrigin
import Testing

/// HTTP/1.1 answers in the order of its requests: an answer the event loop could give at once (the
/// kept list, a plain page load) waits behind a request the router still answers (issue 36).
@Suite("Answers made ahead of time keep HTTP/1.1's order", .serialized, .timeLimit(.minutes(2)))
struct ReadyOrderTests {
    @Test(arguments: [("/api/photos", "application/json", ""), ("/", "text/html", ""), ("/", "text/html", "Accept-Encoding: gzip\r\n")])
    func aPipelinedRequestIsAnsweredAfterTheOneBeforeIt(target: String, contentType: String, fields: String) async throws {
        // Given photo 0 held by its origin halfway, and `target`'s answer made by the route
        let gate = OriginGate()
        gate.open(.firstBytes)
        let photo = Array(try JPEGEncoder.encode(SamplePhoto.make(seed: 6, width: 320, height: 213), quality: 85))
        let origin = try TestOrigin(routes: ["/p0.jpg": .gated(bytes: photo, firstBytes: photo.count / 2, gate: gate)])
        defer { gate.openAll(); origin.stop() }
        try await WebHarness.with(origin: origin, photos: ["p0": "/p0.jpg"]) { harness in
            let viewer = try await harness.newViewer()
            try await harness.report(viewer, scrolling: false, rows: 0...0)
            _ = try await harness.request(.GET, target + "?by=route")

            // When one connection sends, at once, the thumbnail on its way, `target`, and a last request
            let connection = try await RawConnection(port: harness.application.port)
            await connection.send(
                "GET /photos/0/thumbnail HTTP/1.1\r\nHost: a\r\n\r\nGET \(target) HTTP/1.1\r\nHost: a\r\n\(fields)\r\n"
                    + "GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            try await harness.untilAThumbnailIsAwaited("the ask for photo 0's thumbnail never waited")
            gate.open(.rest)

            // Then the answers come in the order of the requests: the thumbnail's, `target`'s, the last
            let text = await connection.readUntilClosed().text.lowercased()
            let types = text.split(separator: "\r\n").filter { $0.hasPrefix("content-type:") }
            #expect(types.count == 3)
            #expect(types.first?.contains("image/") == true)
            #expect(types.dropFirst().first?.contains(contentType) == true)
            #expect(text.components(separatedBy: "http/1.1 200").count == 4, "three answers, all 200")
        }
    }
}
