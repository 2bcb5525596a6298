public import HTTPTransfer

/// Why a data source could not give a list of photos.
public enum DataSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A local file could not be read.
    case unreadable(path: String, reason: String)
    /// An http(s) source could not be fetched.
    case fetchFailed(url: String, TransferError)
    /// The bytes are neither a property list nor JSON of the expected shape.
    case unparseable(location: String, reason: String)

    /// The reason, with the user name and password of any URL in it hidden: it is shown to every visitor.
    public var description: String {
        URLCredentials.redacted(text)
    }

    private var text: String {
        switch self {
        case .unreadable(let path, let reason):
            "cannot read data source \(path): \(reason)"
        case .fetchFailed(let url, let error):
            "cannot fetch data source \(url): \(error)"
        case .unparseable(let location, let reason):
            "data source \(location) does not parse: \(reason)"
        }
    }
}
