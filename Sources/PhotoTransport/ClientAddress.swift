import Foundation
package import NIOCore

/// Who a request comes from, for per-client limits: the peer's address, or, when the peer is a
/// trusted proxy (the compose edge), the last address it put in `X-Forwarded-For`.
package struct ClientAddress {
    /// Addresses or CIDR prefixes (`10.0.0.0/8`, `::1`) whose `X-Forwarded-For` is believed.
    package struct TrustedProxies: Sendable {
        private let prefixes: [(bytes: [UInt8], bits: Int)]

        /// Parses the list, saying which entry is not an address.
        package init(_ entries: [String]) throws(ConfigurationError) {
            prefixes = try entries.map { entry throws(ConfigurationError) in
                let parts = entry.split(separator: "/", maxSplits: 1).map(String.init)
                guard let bytes = ClientAddress.bytes(of: parts[0]) else {
                    throw ConfigurationError("--trusted-proxy: \(entry) is not an IP address or prefix")
                }
                let bits = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
                guard let bits, (0...(bytes.count * 8)).contains(bits) else {
                    throw ConfigurationError("--trusted-proxy: \(entry) has a bad prefix length")
                }
                return (bytes, bits)
            }
        }

        var isEmpty: Bool { prefixes.isEmpty }

        func contains(_ address: String) -> Bool {
            guard let bytes = ClientAddress.bytes(of: address) else { return false }
            return prefixes.contains { prefix in
                guard prefix.bytes.count == bytes.count else { return false }
                var remaining = prefix.bits
                for (a, b) in zip(prefix.bytes, bytes) where remaining > 0 {
                    let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
                    if a & mask != b & mask { return false }
                    remaining -= 8
                }
                return true
            }
        }
    }

    /// The client of a request from `peer` with these `X-Forwarded-For` values.
    package static func of(peer: SocketAddress?, forwardedFor: String?, trusted: TrustedProxies) -> String {
        let peerAddress = address(of: peer)
        guard !trusted.isEmpty, trusted.contains(peerAddress), let forwardedFor else { return peerAddress }
        // The proxy appends the address it saw last; earlier entries are the client's own claims.
        let last = forwardedFor.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        guard let last, bytes(of: last) != nil else { return peerAddress }
        return last
    }

    /// The peer's IP address (an IPv4 client of an IPv6 socket as IPv4), or "unknown".
    static func address(of peer: SocketAddress?) -> String {
        peer?.ipAddress.map(unmapped) ?? "unknown"
    }

    /// `::ffff:1.2.3.4` (an IPv4 client of an IPv6 socket) as `1.2.3.4`.
    static func unmapped(_ address: String) -> String {
        address.hasPrefix("::ffff:") && address.contains(".") ? String(address.dropFirst(7)) : address
    }

    static func bytes(of address: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}

/// A setting that cannot be used, with a message naming it.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
