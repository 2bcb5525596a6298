import CCurl
import Glibc

// With CurlMulti.swift, the only code that touches libcurl: it configures easy handles and turns
// CURLcode results into `TransferError`.

/// One easy handle set up for a GET under `TransferLimits`; used on the loop thread only.
final class CurlEasy {
    /// Names the transfer this handle belongs to.
    let tag: UInt64
    /// The CURL* handle, for `CurlMulti` only.
    let raw: UnsafeMutableRawPointer
    let limits: TransferLimits
    let startedAt = ContinuousClock.now
    /// Set when a guard (a refused address, the average speed) ended the transfer; it wins over
    /// the generic code libcurl then reports.
    var guardFailure: TransferError?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// Extra request header fields (`If-Range`); libcurl reads them until the handle is cleaned up.
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?
    /// Gets each piece of body as it arrives; returning false aborts the transfer.
    private let onBody: (CurlEasy, UnsafeRawBufferPointer) -> Bool

    /// A handle for `url`, asking only for the bytes from `resuming.offset` on while the resource is
    /// still the version `resuming.validator` names; `onBody` runs on the loop thread, inside
    /// `CurlMulti.perform()`.
    init(
        url: String, limits: TransferLimits, tag: UInt64, resuming: (offset: Int, validator: String)? = nil,
        onBody: @escaping (CurlEasy, UnsafeRawBufferPointer) -> Bool
    ) throws(TransferError) {
        guard let raw = curl_easy_init() else {
            throw .other(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "curl_easy_init failed")
        }
        self.raw = raw
        self.tag = tag
        self.limits = limits
        self.onBody = onBody
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)
        try configure(url: url)
        if let resuming {
            // `Range: bytes=N-`; If-Range makes the origin send the whole new body instead if the version changed.
            try check(cpl_curl_easy_setopt_string(raw, CURLOPT_RANGE, "\(resuming.offset)-"))
            requestHeaders = curl_slist_append(nil, "If-Range: \(resuming.validator)")
            try check(cpl_curl_easy_setopt_pointer(raw, CURLOPT_HTTPHEADER, requestHeaders.map(UnsafeMutableRawPointer.init)))
        }
    }

    deinit {
        curl_easy_cleanup(raw)
        curl_slist_free_all(requestHeaders)
        errorBuffer.deallocate()
    }

    /// The status of the latest response, 0 before one has arrived.
    var responseCode: Int { long(CURLINFO_RESPONSE_CODE) }

    /// The declared Content-Length of the current response, nil when there is none.
    var expectedLength: Int64? {
        let length = offset(CURLINFO_CONTENT_LENGTH_DOWNLOAD_T)
        return length >= 0 ? length : nil
    }

    /// The value of response header field `name` of the latest response (after redirects), if it has one.
    func header(_ name: String) -> String? {
        var field: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(raw, name, 0, UInt32(CURLH_HEADER), -1, &field) == CURLHE_OK,
              let value = field?.pointee.value else { return nil }
        return String(cString: value)
    }

    private func configure(url: String) throws(TransferError) {
        try check(cpl_curl_easy_setopt_string(raw, CURLOPT_URL, url))
        // The defaults also allow file:, gopher:, ldap: and more, for the first URL and for redirects.
        try check(cpl_curl_easy_setopt_string(raw, CURLOPT_PROTOCOLS_STR, "http,https"))
        try check(cpl_curl_easy_setopt_string(raw, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
        try check(cpl_curl_easy_setopt_string(raw, CURLOPT_USERAGENT, "ClassicPhotosLive (libcurl)"))
        // No proxy, whatever http_proxy, https_proxy or ALL_PROXY say: through one, the open-socket
        // guard would see only the proxy's address, never the origin's, and the allow-list would not hold.
        try check(cpl_curl_easy_setopt_string(raw, CURLOPT_PROXY, ""))
        try check(cpl_curl_easy_setopt_long(raw, CURLOPT_FOLLOWLOCATION, 1))
        try check(cpl_curl_easy_setopt_long(raw, CURLOPT_MAXREDIRS, max(0, limits.maxRedirects)))
        // Signals would reach whichever thread of the server happens to run; timeouts must not use them.
        try check(cpl_curl_easy_setopt_long(raw, CURLOPT_NOSIGNAL, 1))
        try check(cpl_curl_easy_setopt_long(raw, CURLOPT_CONNECTTIMEOUT_MS, max(1, limits.connectTimeout.wholeMilliseconds)))
        try check(cpl_curl_easy_setopt_long(raw, CURLOPT_LOW_SPEED_LIMIT, max(0, limits.lowSpeedLimit)))
        try check(cpl_curl_easy_setopt_long(raw, CURLOPT_LOW_SPEED_TIME, max(1, (limits.lowSpeedTime.wholeMilliseconds + 999) / 1000)))
        if let total = limits.totalTimeout {
            try check(cpl_curl_easy_setopt_long(raw, CURLOPT_TIMEOUT_MS, max(1, total.wholeMilliseconds)))
        }
        // Only checks a declared Content-Length; `Transfer` counts the bytes of undeclared bodies.
        try check(cpl_curl_easy_setopt_off_t(raw, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limits.maxBodyBytes)))
        try installGuards()
        try check(cpl_curl_easy_setopt_pointer(raw, CURLOPT_ERRORBUFFER, errorBuffer))
        try check(cpl_curl_easy_setopt_pointer(raw, CURLOPT_WRITEDATA, Unmanaged.passUnretained(self).toOpaque()))
        try check(cpl_curl_easy_setopt_write_callback(raw, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            guard let context else { return 0 }
            // Unretained: the transfer keeps its handle alive until the multi handle has let go of it.
            let easy = Unmanaged<CurlEasy>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            return easy.onBody(easy, UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
        })
    }

    /// The error for a finished transfer's result, or nil for a success with a status under 400.
    func error(for code: CURLcode) -> TransferError? {
        if code != CURLE_OK, let guardFailure { return guardFailure }
        switch code {
        case CURLE_OK:
            let status = responseCode
            return status >= 400 ? .httpStatus(status) : nil
        case CURLE_UNSUPPORTED_PROTOCOL:
            // The first URL's scheme was checked before starting, so this is where a redirect led.
            return .redirectRefused(string(CURLINFO_EFFECTIVE_URL))
        case CURLE_URL_MALFORMAT:
            return .invalidURL(string(CURLINFO_EFFECTIVE_URL))
        case CURLE_TOO_MANY_REDIRECTS:
            return .tooManyRedirects(limit: limits.maxRedirects)
        case CURLE_OPERATION_TIMEDOUT:
            return timeoutError
        case CURLE_FILESIZE_EXCEEDED:
            return .bodyTooLarge(limit: limits.maxBodyBytes)
        case CURLE_PARTIAL_FILE:
            return .truncated(received: Int(offset(CURLINFO_SIZE_DOWNLOAD_T)), expected: expectedLength.map { Int($0) })
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_GOT_NOTHING,
             CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION:
            return .connectionFailed(message(for: code))
        default:
            return .other(code: Int(code.rawValue), message: message(for: code))
        }
    }

    /// libcurl reports connect, low-speed and total timeouts with one code: the total is the one whose
    /// deadline has come, and of the other two, whether a connection was made tells which.
    private var timeoutError: TransferError {
        // libcurl rounds to whole milliseconds and was seen to fire up to 1 ms early.
        if let total = limits.totalTimeout, ContinuousClock.now - startedAt >= total - .milliseconds(5) {
            return .timedOut(total)
        }
        return offset(CURLINFO_CONNECT_TIME_T) > 0 ? .stalled(limits.lowSpeedTime) : .connectTimeout(limits.connectTimeout)
    }

    /// libcurl's detailed text (or its generic one), plus the system's reason when a system call failed.
    private func message(for code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        var message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        let systemError = long(CURLINFO_OS_ERRNO)
        if systemError != 0 {
            message += " (\(String(cString: strerror(Int32(systemError)))))"
        }
        return message
    }

    private func long(_ info: CURLINFO) -> Int {
        var value = 0
        return cpl_curl_easy_getinfo_long(raw, info, &value) == CURLE_OK ? value : 0
    }

    private func offset(_ info: CURLINFO) -> Int64 {
        var value: curl_off_t = -1
        return cpl_curl_easy_getinfo_off_t(raw, info, &value) == CURLE_OK ? Int64(value) : -1
    }

    func string(_ info: CURLINFO) -> String {
        var value: UnsafePointer<CChar>?
        guard cpl_curl_easy_getinfo_string(raw, info, &value) == CURLE_OK, let value else { return "" }
        return String(cString: value)
    }

    func check(_ code: CURLcode) throws(TransferError) {
        guard code == CURLE_OK else {
            throw .other(code: Int(code.rawValue), message: String(cString: curl_easy_strerror(code)))
        }
    }
}
