import Foundation

extension ClientAddress {
    /// The key a client's limits are counted under: an IPv4 address as it is, an IPv6 address by
    /// its /64 (`2001:db8:1:2::/64`), the prefix one subscriber is given, so that the addresses of one
    /// network count as one client however many of them it uses.
    package static func group(_ address: String) -> String {
        var v6 = in6_addr()
        guard !address.contains("."), inet_pton(AF_INET6, address, &v6) == 1 else { return address }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
