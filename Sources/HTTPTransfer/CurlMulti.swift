import CCurl

// With CurlEasy.swift, the only code that touches libcurl: it drives the multi handle and turns
// CURLMcode results into `TransferError`.

/// libcurl's one-time global setup; Swift runs a global's initialiser once, thread-safely, on first use.
private let globalInitResult: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

/// The multi handle that runs every transfer of a `TransferLoop`.
///
/// Only `wakeup()` may be called off the loop thread (libcurl allows that from any thread); everything
/// else runs on the loop thread, which is what makes the unchecked `Sendable` sound.
final class CurlMulti: @unchecked Sendable {
    private let raw: UnsafeMutableRawPointer
    private var running: [UnsafeMutableRawPointer: CurlEasy] = [:]

    /// A multi handle; the first one also initialises libcurl.
    init() throws(TransferError) {
        guard globalInitResult == CURLE_OK else {
            throw .other(code: Int(globalInitResult.rawValue), message: "curl_global_init failed")
        }
        guard let raw = curl_multi_init() else {
            throw .other(code: Int(CURLM_OUT_OF_MEMORY.rawValue), message: "curl_multi_init failed")
        }
        self.raw = raw
    }

    deinit {
        curl_multi_cleanup(raw)
    }

    /// Starts driving `easy`; loop thread.
    func add(_ easy: CurlEasy) throws(TransferError) {
        try check(curl_multi_add_handle(raw, easy.raw))
        running[easy.raw] = easy
    }

    /// Stops driving `easy` at once, closing its connection if the transfer was unfinished; loop thread.
    func remove(_ easy: CurlEasy) {
        guard running.removeValue(forKey: easy.raw) != nil else { return }
        curl_multi_remove_handle(raw, easy.raw)
    }

    /// Moves every transfer along as far as it can go without blocking; body callbacks run in here. Loop thread.
    func perform() throws(TransferError) {
        var stillRunning: Int32 = 0
        try check(curl_multi_perform(raw, &stillRunning))
    }

    /// Blocks until a socket is ready, libcurl's next timeout (if sooner than `timeout`) or `wakeup()`. Loop thread.
    func poll(timeout: Duration) throws(TransferError) {
        try check(curl_multi_poll(raw, nil, 0, Int32(timeout.wholeMilliseconds), nil))
    }

    /// Interrupts `poll` now or, if the loop is not polling, its next call. Any thread.
    func wakeup() {
        // Fails only when the wakeup pipe is full, and then a wakeup is already pending.
        _ = curl_multi_wakeup(raw)
    }

    /// Removes the transfers that have finished and returns each one's tag and error (nil for success). Loop thread.
    func takeFinished() -> [(tag: UInt64, error: TransferError?)] {
        var finished: [(tag: UInt64, error: TransferError?)] = []
        var queued: Int32 = 0
        while let message = curl_multi_info_read(raw, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                  let easy = running[handle] else { continue }
            // Read the result before removal, which frees the message.
            finished.append((easy.tag, easy.error(for: message.pointee.data.result)))
            remove(easy)
        }
        return finished
    }

    private func check(_ code: CURLMcode) throws(TransferError) {
        guard code == CURLM_OK else {
            throw .other(code: Int(code.rawValue), message: String(cString: curl_multi_strerror(code)))
        }
    }
}
