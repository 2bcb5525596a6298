/// Whether this instance shares its work with others, and its name among them.
public struct ClusterConfiguration: Sendable, Equatable {
    /// PostgreSQL shared by several instances (`postgres://user:password@host:port/database`).
    /// Default nil: everything stays in this process.
    public var databaseURL: String?
    /// This instance's name among the others: in `/healthz` and the edge's sticky cookie. Default:
    /// random, different each start.
    public var instanceName = "i" + String(UInt32.random(in: .min ... .max), radix: 16)

    /// The defaults: no database.
    public init() {}
}
