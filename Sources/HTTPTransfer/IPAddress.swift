import Glibc

/// An IPv4 or IPv6 address as its bytes (4 or 16), with what kind of network it belongs to.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address in network order: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// Parses a textual address (`127.0.0.1`, `::1`, `[::1]`); nil for anything else.
    public init?(_ text: String) {
        let bare = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, bare, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// An address from its 4 or 16 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// `127.0.0.1`, `::1`.
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(cString: buffer)
    }

    /// An IPv4 address inside IPv6 (`::ffff:a.b.c.d`, NAT64's `64:ff9b::a.b.c.d`) as that IPv4 address,
    /// since that is where a connection to it goes; any other address as it is.
    public var unwrapped: IPAddress {
        guard bytes.count == 16 else { return self }
        let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        let nat64 = bytes[0..<12].elementsEqual([0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0])
        return mapped || nat64 ? IPAddress(bytes: Array(bytes[12...]))! : self
    }

    /// The kind of network the address belongs to; `nil` for a public address.
    public var nonPublicScope: NonPublicScope? {
        let address = unwrapped
        return NonPublicScope.ranges.first { $0.prefix.contains(address) }?.scope
    }
}

/// The kinds of address an outbound request must not reach unless the operator allowed them.
public enum NonPublicScope: String, Sendable {
    case loopback
    case `private`
    case linkLocal = "link-local"
    /// Unspecified, shared (carrier NAT), documentation, benchmarking, multicast, reserved, broadcast.
    case reserved = "non-public"

    /// The special-purpose ranges (IANA's registries), each with its kind.
    fileprivate static let ranges: [(prefix: IPPrefix, scope: NonPublicScope)] = ([
        ("127.0.0.0/8", .loopback), ("::1/128", .loopback),
        ("10.0.0.0/8", .private), ("172.16.0.0/12", .private), ("192.168.0.0/16", .private), ("fc00::/7", .private),
        ("169.254.0.0/16", .linkLocal), ("fe80::/10", .linkLocal),
        ("0.0.0.0/8", .reserved), ("100.64.0.0/10", .reserved), ("192.0.0.0/24", .reserved), ("192.0.2.0/24", .reserved),
        ("198.18.0.0/15", .reserved), ("198.51.100.0/24", .reserved), ("203.0.113.0/24", .reserved),
        ("224.0.0.0/4", .reserved), ("240.0.0.0/4", .reserved), ("::/128", .reserved), ("100::/64", .reserved),
        ("2001:db8::/32", .reserved), ("ff00::/8", .reserved),
    ] as [(String, NonPublicScope)]).map { (IPPrefix($0.0)!, $0.1) }
}

/// An address prefix such as `10.0.0.0/8` or `fe80::/10`; a bare address is a prefix of its full length.
public struct IPPrefix: Sendable, Hashable {
    /// The network's address.
    public let address: IPAddress
    /// How many leading bits must match.
    public let bits: Int

    /// Parses `ADDRESS` or `ADDRESS/BITS`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let first = parts.first, let address = IPAddress(first) else { return nil }
        let full = address.bytes.count * 8
        guard let bits = parts.count == 2 ? Int(parts[1]) : full, (0...full).contains(bits) else { return nil }
        self.address = address
        self.bits = bits
    }

    /// Whether `other` lies in this prefix (an IPv4-mapped address counts as its IPv4 address).
    public func contains(_ other: IPAddress) -> Bool {
        let candidate = address.bytes.count == 4 ? other.unwrapped : other
        guard candidate.bytes.count == address.bytes.count else { return false }
        let whole = bits / 8, rest = bits % 8
        guard candidate.bytes[..<whole].elementsEqual(address.bytes[..<whole]) else { return false }
        guard rest > 0 else { return true }
        let mask = UInt8(0xFF) << UInt8(8 - rest)
        return candidate.bytes[whole] & mask == address.bytes[whole] & mask
    }
}
