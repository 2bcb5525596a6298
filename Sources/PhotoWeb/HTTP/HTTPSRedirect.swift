import Hummingbird

/// The plain-HTTP port beside HTTPS (`--http-redirect-port`): every request is answered `308` with
/// the same target on HTTPS, at the host the client asked for.
struct HTTPSRedirect: HTTPResponder {
    typealias Context = BasicRequestContext

    let httpsPort: Int

    func respond(to request: Request, context: Context) async throws -> Response {
        guard let authority = request.head.authority, let host = Self.host(of: authority) else {
            return APIError.badRequest("a Host field naming this server is needed to redirect to HTTPS").response
        }
        let port = httpsPort == 443 ? "" : ":\(httpsPort)"
        let target = request.head.path ?? "/"
        return Response(status: .permanentRedirect, headers: [.location: "https://\(host)\(port)\(target)", .contentLength: "0"])
    }

    /// The host of `authority` without its port (`[::1]:80` -> `[::1]`), or nil when it is not a
    /// plain name or address: the redirect never points anywhere a crafted field makes up.
    static func host(of authority: String) -> String? {
        let host: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let inside = host.dropFirst().dropLast()
            guard !inside.isEmpty, inside.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
            return String(host)
        }
        host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let allowed = host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
        guard !host.isEmpty, host.count <= 253, allowed else { return nil }
        return String(host)
    }
}
