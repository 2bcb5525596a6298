import CCurl
import Foundation
import Glibc

// Part of the libcurl wrapping (see CurlEasy.swift): the callbacks that refuse a connection to an
// address that is not allowed and end a transfer whose average speed is too low.

extension CurlEasy {
    /// Installs the open-socket and progress callbacks; called once, while configuring.
    func installGuards() throws(TransferError) {
        // Unretained: the transfer keeps its handle alive until the multi handle has let go of it.
        let context = Unmanaged.passUnretained(self).toOpaque()
        try check(cpl_curl_easy_setopt_pointer(raw, CURLOPT_OPENSOCKETDATA, context))
        try check(cpl_curl_easy_setopt_opensocket_callback(raw, CURLOPT_OPENSOCKETFUNCTION) { context, _, address in
            guard let context else { return CURL_SOCKET_BAD }
            return Unmanaged<CurlEasy>.fromOpaque(context).takeUnretainedValue().openSocket(to: address)
        })
        try check(cpl_curl_easy_setopt_pointer(raw, CURLOPT_XFERINFODATA, context))
        try check(cpl_curl_easy_setopt_xferinfo_callback(raw, CURLOPT_XFERINFOFUNCTION) { context, _, received, _, _ in
            guard let context else { return 0 }
            return Unmanaged<CurlEasy>.fromOpaque(context).takeUnretainedValue().isTooSlow(received: Int64(received)) ? 1 : 0
        })
        try check(cpl_curl_easy_setopt_long(raw, CURLOPT_NOPROGRESS, 0))
    }

    /// Opens the socket for a connection libcurl is about to make, unless its address (the one
    /// really connected to, after DNS, on every redirect hop) is not an allowed source.
    private func openSocket(to address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        var bytes = [UInt8](repeating: 0, count: 16)
        var port: Int32 = 0
        let length = Int(cpl_sockaddr_ip(address, &bytes, &port))
        let url = string(CURLINFO_EFFECTIVE_URL)
        guard let ip = IPAddress(bytes: Array(bytes.prefix(length))) else {
            guardFailure = .addressRefused(url: url, reason: "an address that is neither IPv4 nor IPv6")
            return CURL_SOCKET_BAD
        }
        if let reason = limits.allowedSources.refusal(host: URLComponents(string: url)?.host, address: ip, port: Int(port)) {
            guardFailure = .addressRefused(url: url, reason: reason)
            return CURL_SOCKET_BAD
        }
        return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
    }

    /// Whether the body's average speed since the start is under the minimum, once the transfer has
    /// run for the stall time (a slow start is not judged before the stall check would be) and body
    /// bytes have begun to arrive (none at all is a stall, which libcurl reports).
    private func isTooSlow(received: Int64) -> Bool {
        guard limits.minimumAverageSpeed > 0, received > 0 else { return false }
        let elapsed = ContinuousClock.now - startedAt
        guard elapsed >= limits.lowSpeedTime else { return false }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let average = Int(Double(max(0, received)) / seconds)
        guard average < limits.minimumAverageSpeed else { return false }
        guardFailure = .tooSlow(average: average, minimum: limits.minimumAverageSpeed)
        return true
    }
}
