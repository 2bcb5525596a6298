import Foundation

/// One entry of a data source: a photo's name and the URL its image is fetched from.
public struct PhotoEntry: Sendable, Equatable {
    /// The photo's display name (the property list's key).
    public var name: String
    /// The image URL, as written in the source.
    public var url: String
    /// Set when the entry cannot be downloaded at all; the row starts as failed with this reason.
    public var problem: String?
    /// What the disk cache files the photo under: its URL, unless the URL changes between runs
    /// for the same photo (the built-in origin's port does).
    public var cacheKey: String

    /// Creates an entry, checking that `url` is an http(s) URL with a host.
    public init(name: String, url: String) {
        self.name = name
        self.url = url
        self.problem = PhotoEntry.problem(with: url)
        self.cacheKey = url
    }

    /// Creates an entry whose value was not usable as a URL at all.
    init(name: String, unusableValue: String) {
        self.name = name
        self.url = ""
        self.problem = unusableValue
        self.cacheKey = ""
    }

    static func problem(with url: String) -> String? {
        guard let parsed = URL(string: url),
              let scheme = parsed.scheme?.lowercased(),
              scheme == "http" || scheme == "https",
              let host = parsed.host, !host.isEmpty
        else {
            return "not a valid http(s) URL: \(url.isEmpty ? "(empty)" : url)"
        }
        return nil
    }
}
