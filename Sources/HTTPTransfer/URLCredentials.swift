/// The user name and password a URL may carry (`http://user:password@host/`), hidden wherever a URL
/// becomes text someone may see: an error's reason and detail, a row's address, the list's status.
public enum URLCredentials {
    /// What replaces the userinfo of a URL: says there was some, shows none of it.
    public static let mask = "***"

    /// `text` with the userinfo of every URL in it replaced by `mask` (`http://***@host/`). The
    /// userinfo runs to the last `@` before the host's end, as URL parsers read it, so a password
    /// with an `@` in it is hidden whole.
    public static func redacted(_ text: String) -> String {
        guard text.contains("@") else { return text }
        return text.replacing(#/([A-Za-z][A-Za-z0-9+.\-]*://)[^\s/?#]*@/#) { match in
            "\(match.1)\(mask)@"
        }
    }
}
