import Foundation

/// Which addresses outbound requests may connect to: every public address, and of the loopback,
/// private, link-local and other non-public ones only those the operator named.
///
/// Checked against the address each connection is actually opened to (every redirect hop's, after
/// DNS), so a name that resolves, or later re-resolves, to an internal address gains nothing.
public struct AllowedSources: Sendable, Equatable {
    /// One named exception: a host name, an address or a prefix, on one port or on any.
    public struct Entry: Sendable, Hashable, CustomStringConvertible {
        enum Host: Sendable, Hashable {
            case name(String)
            case prefix(IPPrefix)
        }

        let host: Host
        /// The port it is allowed on; nil for every port.
        public let port: Int?
        /// The entry as written.
        public let description: String

        /// Parses `HOST`, `HOST:PORT`, `ADDRESS/BITS`, `[IPV6]:PORT`, `[IPV6/BITS]:PORT`; nil when malformed.
        public init?(_ text: String) {
            let text = text.trimmingCharacters(in: .whitespaces)
            var hostPart = Substring(text), portPart: Substring?
            if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
                hostPart = text[text.index(after: text.startIndex)..<close]
                let after = text[text.index(after: close)...]
                guard after.isEmpty || after.hasPrefix(":") else { return nil }
                portPart = after.isEmpty ? nil : after.dropFirst()
            } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
                hostPart = text[..<colon]
                portPart = text[text.index(after: colon)...]
            }
            if let portPart {
                guard let port = Int(portPart), (1...65_535).contains(port) else { return nil }
                self.port = port
            } else {
                port = nil
            }
            if let prefix = IPPrefix(String(hostPart)) {
                host = .prefix(prefix)
            } else {
                let name = hostPart.lowercased()
                let allowed = name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }
                guard !name.isEmpty, allowed, name.unicodeScalars.allSatisfy(\.isASCII) else { return nil }
                host = .name(name)
            }
            description = text
        }

        /// The entry for the origin of `url` (its host and port, the scheme's default when none is
        /// written); nil when `url` is not an http(s) URL.
        public init?(origin url: String) {
            guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty else { return nil }
            let port = components.port ?? (scheme == "https" ? 443 : 80)
            self.init(host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
        }

        func matches(host urlHost: String?, address: IPAddress, port: Int) -> Bool {
            guard self.port == nil || self.port == port else { return false }
            switch host {
            case .prefix(let prefix): return prefix.contains(address)
            case .name(let name): return urlHost?.lowercased() == name
            }
        }
    }

    /// The operator's exceptions.
    public private(set) var entries: [Entry]

    /// Public addresses only: the default.
    public static let publicOnly = AllowedSources(entries: [])

    /// Public addresses and `entries`.
    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Parses each of `texts` as an entry; throws naming the first that is malformed.
    public init(parsing texts: [String]) throws(MalformedSource) {
        entries = try texts.map { text throws(MalformedSource) in
            guard let entry = Entry(text) else { throw MalformedSource(text: text) }
            return entry
        }
    }

    /// These sources and `entry`.
    public func allowing(_ entry: Entry) -> AllowedSources {
        entries.contains(entry) ? self : AllowedSources(entries: entries + [entry])
    }

    /// Why a connection to `address` port `port`, made for a URL whose host is `host`, is refused;
    /// nil when it is allowed.
    public func refusal(host: String?, address: IPAddress, port: Int) -> String? {
        guard let scope = address.nonPublicScope else { return nil }
        if entries.contains(where: { $0.matches(host: host, address: address, port: port) }) { return nil }
        let shown = address.bytes.count == 16 ? "[\(address)]" : "\(address)"
        return "\(shown):\(port) is a \(scope.rawValue) address, not an allowed source"
    }
}

/// An allowed-source entry that is not a host, an address or a prefix with an optional port.
public struct MalformedSource: Error, Sendable, CustomStringConvertible {
    /// The entry as written.
    public let text: String
    public var description: String {
        "\(text) is not HOST, HOST:PORT, ADDRESS/BITS or [IPV6]:PORT"
    }
}
