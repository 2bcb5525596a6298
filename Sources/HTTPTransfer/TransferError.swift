/// Why a transfer produced no body; `description` is a reason for people, `detail` the technical text.
public enum TransferError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not an http or https URL (checked before any network use).
    case invalidURL(String)
    /// The origin redirected to a URL whose scheme is not http or https (file:, gopher:, ...).
    case redirectRefused(String)
    /// A connection (for the first URL or a redirect) would have gone to an address not allowed by
    /// `TransferLimits.allowedSources`; `url` is the one it was for, `reason` says which address and why.
    case addressRefused(url: String, reason: String)
    /// The origin answered with a status of 400 or more.
    case httpStatus(Int)
    /// The origin redirected more than `TransferLimits.maxRedirects` times.
    case tooManyRedirects(limit: Int)
    /// No connection within `TransferLimits.connectTimeout`.
    case connectTimeout(Duration)
    /// The body arrived under `TransferLimits.lowSpeedLimit` for `TransferLimits.lowSpeedTime`.
    case stalled(Duration)
    /// The body's average speed stayed under `TransferLimits.minimumAverageSpeed` (bytes per second).
    case tooSlow(average: Int, minimum: Int)
    /// The transfer did not finish within `TransferLimits.totalTimeout`.
    case timedOut(Duration)
    /// The body (declared or counted) exceeds `TransferLimits.maxBodyBytes`.
    case bodyTooLarge(limit: Int)
    /// The connection closed before the declared body had arrived; `expected` is nil when no length was declared.
    case truncated(received: Int, expected: Int?)
    /// The host could not be resolved or reached, or the connection broke; the text is libcurl's.
    case connectionFailed(String)
    /// The transfer was cancelled through its handle, its task, or the loop's shutdown.
    case cancelled
    /// Any other libcurl failure, with its CURLcode and text.
    case other(code: Int, message: String)

    /// A one-line reason written for people, e.g. "Not found at the origin (HTTP 404)"; `detail` keeps
    /// the technical text. Neither ever shows a URL's user name or password.
    public var description: String { URLCredentials.redacted(reason) }

    /// The technical detail behind `description`, for logs and a `detail` field: URLs (their
    /// credentials hidden), byte counts, libcurl's text.
    public var detail: String { URLCredentials.redacted(technicalText) }

    private var reason: String {
        switch self {
        case .invalidURL: "This is not a web address (only http and https are)"
        case .redirectRefused: "The origin redirected to an address that is not http or https"
        case .addressRefused(_, let reason): "Refused to fetch from \(reason)"
        case .httpStatus(let status): Self.statusReason(status)
        case .tooManyRedirects(let limit): "The origin redirected too many times (more than \(limit))"
        case .connectTimeout(let timeout): "Could not connect to the origin within \(timeout.readable)"
        case .stalled(let time): "The download stalled (too slow for \(time.readable))"
        case .tooSlow(_, let minimum): "The download was too slow (under \(Self.readableSize(minimum))/s on average)"
        case .timedOut(let timeout): "The download took longer than \(timeout.readable)"
        case .bodyTooLarge(let limit): "The file is too large (over \(Self.readableSize(limit)))"
        case .truncated: "The download was cut short"
        case .connectionFailed(let message): Self.connectionReason(message)
        case .cancelled: "The download was cancelled"
        case .other: "The download failed"
        }
    }

    private var technicalText: String {
        switch self {
        case .invalidURL(let url): "not a valid http(s) URL: \(url)"
        case .redirectRefused(let url): "refused to follow a redirect to \(url) (only http and https are allowed)"
        case .addressRefused(let url, let reason): "refused to connect for \(url): \(reason)"
        case .httpStatus(let status): ["HTTP \(status)", Self.reasonPhrases[status]].compactMap { $0 }.joined(separator: " ")
        case .tooManyRedirects(let limit): "too many redirects (more than \(limit))"
        case .connectTimeout(let timeout): "could not connect within \(timeout.readable)"
        case .stalled(let time): "transfer stalled: too slow for \(time.readable)"
        case .tooSlow(let average, let minimum): "transfer too slow: \(average) bytes/s on average, under the minimum of \(minimum)"
        case .timedOut(let timeout): "transfer did not finish within \(timeout.readable)"
        case .bodyTooLarge(let limit): "body larger than \(Self.readableSize(limit))"
        case .truncated(let received, let expected?): "body truncated: received \(received) of \(expected) bytes"
        case .truncated(let received, nil): "body truncated after \(received) bytes"
        case .connectionFailed(let message): message
        case .cancelled: "transfer cancelled"
        case .other(let code, let message): "curl error \(code): \(message)"
        }
    }

    /// A status for people: the common ones in words, the rest by class; the code always in brackets.
    private static func statusReason(_ status: Int) -> String {
        switch status {
        case 404, 410: "Not found at the origin (HTTP \(status))"
        case 401, 403: "The origin refused access (HTTP \(status))"
        case 429: "The origin is busy: too many requests (HTTP 429)"
        case 500...599: "The origin failed (HTTP \(status))"
        default: "The origin refused the request (HTTP \(status))"
        }
    }

    /// Reads libcurl's connection text ("Failed to connect to H port P after N ms: ... (Connection refused)",
    /// "Could not resolve host: H", TLS failures) into a short reason.
    private static func connectionReason(_ message: String) -> String {
        if let match = message.firstMatch(of: #/Failed to connect to (\S+) port (\d+)/#) {
            let cause = message.firstMatch(of: #/\(([^()]+)\)$/#).map { " (" + $0.1.lowercased() + ")" } ?? ""
            return "Could not connect to \(match.1):\(match.2)\(cause)"
        }
        if let match = message.firstMatch(of: #/Could not resolve (?:host|proxy): (\S+)/#) {
            return "Could not find the host \(match.1) (DNS lookup failed)"
        }
        let lowered = message.lowercased()
        if lowered.contains("ssl") || lowered.contains("tls") || lowered.contains("certificate") {
            return "The secure connection (TLS) to the origin failed"
        }
        if lowered.contains("empty reply") {
            return "The origin closed the connection without answering"
        }
        return "The connection to the origin failed"
    }

    private static let reasonPhrases: [Int: String] = [
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 408: "Request Timeout", 410: "Gone",
        413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type", 429: "Too Many Requests",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
        503: "Service Unavailable", 504: "Gateway Timeout",
    ]

    private static func readableSize(_ bytes: Int) -> String {
        let mebibyte = 1024 * 1024
        if bytes >= mebibyte, bytes % mebibyte == 0 { return "\(bytes / mebibyte) MB" }
        if bytes >= 1024, bytes % 1024 == 0 { return "\(bytes / 1024) KB" }
        return "\(bytes) bytes"
    }
}
