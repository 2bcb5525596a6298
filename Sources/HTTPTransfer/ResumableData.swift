public import Foundation

/// The bytes a cancelled transfer had received, with the version of the resource they belong to:
/// enough to ask the origin for only the rest (`Range: bytes=N-` with `If-Range`). Nuke's name.
public struct ResumableData: Sendable, Equatable {
    /// The first `data.count` bytes of the body.
    public var data: Data
    /// What the origin called the version these bytes belong to.
    public var validator: Validator

    /// Bytes `data` of the version `validator` names.
    public init(data: Data, validator: Validator) {
        self.data = data
        self.validator = validator
    }

    /// What names one version of a resource, as the origin sent it; `If-Range` repeats it, and an
    /// origin answers a range only while it still names the current version.
    public enum Validator: Sendable, Hashable {
        /// A strong `ETag`, quotes included (a weak one cannot make a range conditional).
        case entityTag(String)
        /// A `Last-Modified` date, as sent.
        case lastModified(String)

        /// The validator for a response's `ETag` and `Last-Modified` fields: the strong ETag, else the
        /// date; nil when there is neither, and then a partial body cannot be resumed safely.
        public init?(etag: String?, lastModified: String?) {
            if let etag, etag.hasPrefix("\"") {
                self = .entityTag(etag)
            } else if let lastModified, !lastModified.isEmpty {
                self = .lastModified(lastModified)
            } else {
                return nil
            }
        }

        /// The value of an `If-Range` field naming this version.
        public var headerValue: String {
            switch self {
            case .entityTag(let tag): tag
            case .lastModified(let date): date
            }
        }
    }
}
