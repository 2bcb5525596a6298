import Foundation

/// The loop thread's side of one transfer: collects the body within its limits, reports progress,
/// and continues from resumable data when the origin sends only the rest.
final class Transfer {
    let request: TransferLoop.Request
    private var easy: CurlEasy?
    /// What this attempt resumes from; dropped when the origin will not continue it.
    private var resuming: ResumableData?
    /// The body so far; its bytes are handed out (to the watcher, to the completion) without copying.
    private let body = ArrivedBody()
    /// Body bytes received from the network, over every start.
    private var fetched = 0
    /// The response this body belongs to, read at its first byte.
    private var response: Response?
    private var throttle = ProgressThrottle()
    /// Set when a body callback aborted the transfer; libcurl then only reports a write error.
    private var abortReason: TransferError?
    /// Set when a 206 did not continue the bytes held: they must not be mixed, so the transfer starts over.
    private var mustStartOver = false

    /// What the first byte of a body said about the response.
    private struct Response {
        var validator: ResumableData.Validator?
        /// The whole body's length, when declared.
        var expected: Int64?
        /// Bytes at the start of `body` that came from `resuming`.
        var resumedFrom: Int
    }

    init(_ request: TransferLoop.Request) {
        self.request = request
        resuming = request.resumingFrom.flatMap { $0.data.isEmpty ? nil : $0 }
    }

    /// Checks the URL and adds the transfer to `multi`; loop thread.
    func start(on multi: CurlMulti) throws(TransferError) {
        guard Self.isHTTPURL(request.url) else { throw .invalidURL(request.url) }
        let easy = try CurlEasy(
            url: request.url, limits: request.limits, tag: request.id,
            resuming: resuming.map { ($0.data.count, $0.validator.headerValue) }
        ) { [unowned self] easy, bytes in
            receive(bytes, from: easy)
        }
        try multi.add(easy)
        self.easy = easy
    }

    /// Takes the transfer off `multi` before it has finished; loop thread.
    func abort(from multi: CurlMulti) {
        if let easy { multi.remove(easy) }
    }

    /// After the transfer left `multi` with `error`: starts it again without a range when the origin
    /// could not continue the bytes held (a 206 of another version, a 416); true if it did. Loop thread.
    func startsOver(after error: TransferError?, on multi: CurlMulti) -> Bool {
        guard resuming != nil, mustStartOver || error == .httpStatus(416) else { return false }
        resuming = nil
        body.removeAll()
        response = nil
        mustStartOver = false
        abortReason = nil
        do throws(TransferError) {
            try start(on: multi)
            return true
        } catch {
            abortReason = error
            return false
        }
    }

    /// Calls the completion with the body, or with the reason it failed (and, when cancelled, what
    /// to resume from); loop thread, once, after the transfer has left the multi handle.
    func finish(_ error: TransferError?) {
        defer { easy = nil }
        if let failure = abortReason ?? error {
            request.completion(TransferOutcome(
                result: .failure(failure), resumableData: failure == .cancelled ? resumableData : nil, fetchedBytes: fetched))
            return
        }
        if response == nil {
            // An empty body: no byte ever said what the response declared.
            response = Response(validator: nil, expected: easy?.expectedLength, resumedFrom: 0)
        }
        let received = Int64(body.count)
        if throttle.isBehind(received) {
            request.progress(progress)
        }
        request.completion(TransferOutcome(result: .success(body.compacted), resumedBytes: response?.resumedFrom ?? 0, fetchedBytes: fetched))
    }

    /// The bytes held and their version: this attempt's if its response had begun, else what it resumed from.
    private var resumableData: ResumableData? {
        guard let response else { return resuming }
        guard !body.isEmpty, let validator = response.validator else { return nil }
        return ResumableData(data: body.compacted, validator: validator)
    }

    private var progress: TransferProgress {
        TransferProgress(received: Int64(body.count), expected: response?.expected, resumedFrom: Int64(response?.resumedFrom ?? 0))
    }

    private func receive(_ bytes: UnsafeRawBufferPointer, from easy: CurlEasy) -> Bool {
        let status = easy.responseCode
        guard status < 400 else {
            // The error body is of no use; stop reading it.
            abortReason = .httpStatus(status)
            return false
        }
        if response == nil {
            guard begin(status, from: easy) else { return false }
        }
        guard body.count + bytes.count <= request.limits.maxBodyBytes else {
            abortReason = .bodyTooLarge(limit: request.limits.maxBodyBytes)
            return false
        }
        body.append(bytes)
        fetched += bytes.count
        if throttle.shouldReport(progress) {
            let progress = progress
            request.progress(progress)
            if let arrived = request.arrived, progress.received < progress.expected ?? .max, arrived.wants(progress) {
                // No copy: appends never change the bytes a view of the body shows.
                arrived.take(body.bytes)
            }
        }
        return true
    }

    /// Reads the response's head at its first body byte: a 206 that continues the bytes held
    /// starts from them, anything else from nothing. False when a 206 continues something else.
    private func begin(_ status: Int, from easy: CurlEasy) -> Bool {
        let validator = ResumableData.Validator(etag: easy.header("ETag"), lastModified: easy.header("Last-Modified"))
        let length = easy.expectedLength
        var response = Response(validator: validator, expected: length, resumedFrom: 0)
        if let resuming, status == 206 {
            let range = easy.header("Content-Range").flatMap(ContentRange.init)
            // If-Range should make a changed resource come whole with 200; an origin that sends a
            // range of another version anyway, another range, or one it does not name the version
            // of, would mix two bodies.
            guard range?.start == Int64(resuming.data.count), validator == resuming.validator else {
                mustStartOver = true
                return false
            }
            body.removeAll()
            body.append(resuming.data)
            response.resumedFrom = body.count
            response.validator = validator ?? resuming.validator
            response.expected = range?.total ?? length.map { $0 + Int64(body.count) }
        }
        if let expected = response.expected {
            body.reserveCapacity(Int(min(expected, Int64(request.limits.maxBodyBytes))))
        }
        self.response = response
        return true
    }

    private static func isHTTPURL(_ string: String) -> Bool {
        guard let url = URL(string: string), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else { return false }
        return true
    }
}
