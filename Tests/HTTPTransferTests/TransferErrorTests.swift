import Foundation
import HTTPTransfer
import Testing
import TestOrigin

@Suite("TransferError: failures and their descriptions", .timeLimit(.minutes(1)))
struct TransferErrorTests {
    @Test("a closed port fails with curl's connection error")
    func connectionRefused() async throws {
        // Given: an origin that no longer listens
        let origin = try TestOrigin(routes: [:])
        origin.stop()

        // When
        var error: TransferError?
        try await withLoop("test-refused") { (loop) async throws in
            error = await #expect(throws: TransferError.self) { try await loop.fetch(origin.url("/"), limits: .onLoopback) }
        }

        // Then
        guard case .connectionFailed(let message) = error else {
            Issue.record("expected .connectionFailed, got \(String(describing: error))")
            return
        }
        print("connection refused reads: \(message)")
        #expect(message.contains("127.0.0.1 port \(origin.port)"))
        #expect(message.contains("Connection refused"))
        #expect(error?.description == "Could not connect to 127.0.0.1:\(origin.port) (connection refused)")
    }

    @Test("a body shorter than its Content-Length fails with .truncated")
    func truncatedBody() async throws {
        let origin = try TestOrigin(routes: ["/cut": .truncated(bytes: pattern(1000), declaredLength: 5000)])
        defer { origin.stop() }
        try await withLoop("test-truncated") { (loop) async throws in
            await #expect(throws: TransferError.truncated(received: 1000, expected: 5000)) {
                try await loop.fetch(origin.url("/cut"), limits: .onLoopback)
            }
        }
    }

    @Test("each error reads as a reason for people", arguments: [
        (TransferError.invalidURL("ftp://x"), "This is not a web address (only http and https are)"),
        (.redirectRefused("file:///etc/passwd"), "The origin redirected to an address that is not http or https"),
        (.httpStatus(404), "Not found at the origin (HTTP 404)"),
        (.httpStatus(410), "Not found at the origin (HTTP 410)"),
        (.httpStatus(403), "The origin refused access (HTTP 403)"),
        (.httpStatus(429), "The origin is busy: too many requests (HTTP 429)"),
        (.httpStatus(500), "The origin failed (HTTP 500)"),
        (.httpStatus(599), "The origin failed (HTTP 599)"),
        (.httpStatus(400), "The origin refused the request (HTTP 400)"),
        (.tooManyRedirects(limit: 5), "The origin redirected too many times (more than 5)"),
        (.connectTimeout(.seconds(10)), "Could not connect to the origin within 10 s"),
        (.stalled(.seconds(15)), "The download stalled (too slow for 15 s)"),
        (.timedOut(.milliseconds(1500)), "The download took longer than 1500 ms"),
        (.bodyTooLarge(limit: 50 * 1024 * 1024), "The file is too large (over 50 MB)"),
        (.truncated(received: 1000, expected: 5000), "The download was cut short"),
        (.connectionFailed("Failed to connect to 127.0.0.1 port 18699 after 0 ms: Couldn't connect to server (Connection refused)"),
         "Could not connect to 127.0.0.1:18699 (connection refused)"),
        (.connectionFailed("Could not resolve host: photos.invalid"), "Could not find the host photos.invalid (DNS lookup failed)"),
        (.connectionFailed("SSL certificate problem: self-signed certificate"), "The secure connection (TLS) to the origin failed"),
        (.connectionFailed("Empty reply from server"), "The origin closed the connection without answering"),
        (.connectionFailed("Recv failure: Connection reset by peer"), "The connection to the origin failed"),
        (.cancelled, "The download was cancelled"),
        (.other(code: 35, message: "SSL connect error"), "The download failed"),
    ])
    func description(error: TransferError, expected: String) {
        #expect(error.description == expected)
    }

    @Test("each error keeps its technical detail", arguments: [
        (TransferError.invalidURL("ftp://x"), "not a valid http(s) URL: ftp://x"),
        (.redirectRefused("file:///etc/passwd"), "refused to follow a redirect to file:///etc/passwd (only http and https are allowed)"),
        (.httpStatus(404), "HTTP 404 Not Found"),
        (.httpStatus(599), "HTTP 599"),
        (.tooManyRedirects(limit: 5), "too many redirects (more than 5)"),
        (.connectTimeout(.seconds(10)), "could not connect within 10 s"),
        (.stalled(.seconds(15)), "transfer stalled: too slow for 15 s"),
        (.timedOut(.milliseconds(1500)), "transfer did not finish within 1500 ms"),
        (.bodyTooLarge(limit: 16 * 1024), "body larger than 16 KB"),
        (.truncated(received: 1000, expected: 5000), "body truncated: received 1000 of 5000 bytes"),
        (.truncated(received: 1000, expected: nil), "body truncated after 1000 bytes"),
        (.connectionFailed("Failed to connect"), "Failed to connect"),
        (.cancelled, "transfer cancelled"),
        (.other(code: 35, message: "SSL connect error"), "curl error 35: SSL connect error"),
    ])
    func detail(error: TransferError, expected: String) {
        #expect(error.detail == expected)
    }
}
