import Foundation

/// Cancels one transfer started by `TransferLoop.start`; may be used from any thread.
public final class TransferHandle: Sendable {
    private let loop: TransferLoop
    private let id: UInt64

    init(loop: TransferLoop, id: UInt64) {
        self.loop = loop
        self.id = id
    }

    /// Aborts the transfer at once: the loop drops it from the multi handle, closing its connection,
    /// and its completion gets `.cancelled` on the loop thread. Idempotent; a no-op once it has completed.
    public func cancel() {
        loop.cancel(id)
    }
}

/// The loop thread's side of one transfer: collects the body within its limits and reports progress.
final class Transfer {
    let request: TransferLoop.Request
    private var easy: CurlEasy?
    private var body = Data()
    private var throttle = ProgressThrottle()
    /// Set when a body callback aborted the transfer; libcurl then only reports a write error.
    private var abortReason: TransferError?

    init(_ request: TransferLoop.Request) {
        self.request = request
    }

    /// Checks the URL and adds the transfer to `multi`; loop thread.
    func start(on multi: CurlMulti) throws(TransferError) {
        guard Self.isHTTPURL(request.url) else { throw .invalidURL(request.url) }
        let easy = try CurlEasy(url: request.url, limits: request.limits, tag: request.id) { [unowned self] easy, bytes in
            receive(bytes, from: easy)
        }
        try multi.add(easy)
        self.easy = easy
    }

    /// Takes the transfer off `multi` before it has finished; loop thread.
    func abort(from multi: CurlMulti) {
        if let easy { multi.remove(easy) }
    }

    /// Calls the completion with the body, or with the reason it failed; loop thread, once, after
    /// the transfer has left the multi handle.
    func finish(_ error: TransferError?) {
        let expected = easy?.expectedLength
        easy = nil
        if let failure = abortReason ?? error {
            request.completion(.failure(failure))
            return
        }
        let received = Int64(body.count)
        if throttle.isBehind(received) {
            request.progress(TransferProgress(received: received, expected: expected))
        }
        request.completion(.success(body))
    }

    private func receive(_ bytes: UnsafeRawBufferPointer, from easy: CurlEasy) -> Bool {
        let status = easy.responseCode
        guard status < 400 else {
            // The error body is of no use; stop reading it.
            abortReason = .httpStatus(status)
            return false
        }
        guard body.count + bytes.count <= request.limits.maxBodyBytes else {
            abortReason = .bodyTooLarge(limit: request.limits.maxBodyBytes)
            return false
        }
        let expected = easy.expectedLength
        if body.isEmpty, let expected {
            body.reserveCapacity(Int(min(expected, Int64(request.limits.maxBodyBytes))))
        }
        body.append(contentsOf: bytes)
        let progress = TransferProgress(received: Int64(body.count), expected: expected)
        if throttle.shouldReport(progress) {
            request.progress(progress)
        }
        return true
    }

    private static func isHTTPURL(_ string: String) -> Bool {
        guard let url = URL(string: string), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else { return false }
        return true
    }
}
