/// Why a transfer produced no body; `description` is a readable reason for a user.
public enum TransferError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not an http or https URL (checked before any network use).
    case invalidURL(String)
    /// The origin redirected to a URL whose scheme is not http or https (file:, gopher:, ...).
    case redirectRefused(String)
    /// The origin answered with a status of 400 or more.
    case httpStatus(Int)
    /// The origin redirected more than `TransferLimits.maxRedirects` times.
    case tooManyRedirects(limit: Int)
    /// No connection within `TransferLimits.connectTimeout`.
    case connectTimeout(Duration)
    /// The body arrived under `TransferLimits.lowSpeedLimit` for `TransferLimits.lowSpeedTime`.
    case stalled(Duration)
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

    /// A one-line reason, e.g. "HTTP 404 Not Found".
    public var description: String {
        switch self {
        case .invalidURL(let url): "not a valid http(s) URL: \(url)"
        case .redirectRefused(let url): "refused to follow a redirect to \(url) (only http and https are allowed)"
        case .httpStatus(let status): ["HTTP \(status)", Self.reasonPhrases[status]].compactMap { $0 }.joined(separator: " ")
        case .tooManyRedirects(let limit): "too many redirects (more than \(limit))"
        case .connectTimeout(let timeout): "could not connect within \(timeout.readable)"
        case .stalled(let time): "transfer stalled: too slow for \(time.readable)"
        case .timedOut(let timeout): "transfer did not finish within \(timeout.readable)"
        case .bodyTooLarge(let limit): "body larger than \(Self.readableSize(limit))"
        case .truncated(let received, let expected?): "body truncated: received \(received) of \(expected) bytes"
        case .truncated(let received, nil): "body truncated after \(received) bytes"
        case .connectionFailed(let message): message
        case .cancelled: "transfer cancelled"
        case .other(let code, let message): "curl error \(code): \(message)"
        }
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
