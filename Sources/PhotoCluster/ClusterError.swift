import HTTPTransfer
import PostgresNIO

/// Why the cluster could not start or a database step failed, in words for the log and the console.
public enum ClusterError: Error, Sendable, CustomStringConvertible {
    /// The database URL does not parse (said with its user name and password hidden).
    case badURL(String, reason: String)
    /// PostgreSQL did not answer at start.
    case unreachable(String, reason: String)
    /// The schema could not be made.
    case schema(reason: String)

    public var description: String {
        switch self {
        // The operator's password stays out of the log and the console.
        case .badURL(let url, let reason): "--database-url \(URLCredentials.redacted(url)) is not usable: \(reason)"
        case .unreachable(let address, let reason): "cannot reach PostgreSQL at \(address): \(reason)"
        case .schema(let reason): "cannot create the cluster's tables in PostgreSQL: \(reason)"
        }
    }
}

extension Error {
    /// A one-line reason: PostgreSQL's own message when it sent one, else what went wrong below.
    var clusterReason: String {
        guard let error = self as? PSQLError else { return "\(self)" }
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return "\(underlying)" }
        return "\(error.code)"
    }
}
