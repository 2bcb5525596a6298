import Foundation
import PostgresNIO

/// Where PostgreSQL is: a `postgres://user:password@host:port/database` URL, read once at start.
public struct DatabaseAddress: Sendable, CustomStringConvertible {
    /// The connection settings postgres-nio takes.
    let configuration: PostgresConnection.Configuration
    /// host:port/database, without the password, for messages.
    public let description: String

    /// Parses `url`; `postgres://` and `postgresql://` are accepted, TLS is not (loopback and private networks only).
    public init(_ url: String) throws(ClusterError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
              ["postgres", "postgresql"].contains(scheme.lowercased()) else {
            throw .badURL(url, reason: "expected postgres://user:password@host:port/database")
        }
        guard let host = components.host, !host.isEmpty else { throw .badURL(url, reason: "no host") }
        guard let user = components.user, !user.isEmpty else { throw .badURL(url, reason: "no user name") }
        let port = components.port ?? 5432
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user.removingPercentEncoding ?? user,
            password: components.password?.removingPercentEncoding, database: database.isEmpty ? nil : database, tls: .disable)
        configuration.options.connectTimeout = .seconds(5)
        self.configuration = configuration
        description = "\(host):\(port)/\(database.isEmpty ? user : database)"
    }
}
