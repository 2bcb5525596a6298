import PostgresNIO

/// The cluster's tables and channels. Created at start, idempotently: any number of instances may
/// start at once (an advisory lock makes them take turns).
enum ClusterSchema {
    /// Results every instance serves: originals, thumbnails, previews, full-size sepia images.
    static let results = "classic_photos_results"
    /// State changes of work, by the instance that ran it, kept a while for instances that reconnect.
    static let events = "classic_photos_events"
    /// NOTIFY channel: a result was kept (payload: its name).
    static let resultsChannel = "classic_photos_results"
    /// NOTIFY channel: events (payload: sequence number, instance, JSON).
    static let eventsChannel = "classic_photos_events"

    /// Advisory lock classes (the first key of the two-key form).
    static let workLockClass: Int32 = 16_001
    static let wantLockClass: Int32 = 16_002
    static let schemaLockClass: Int32 = 16_003

    static let statements: [PostgresQuery] = [
        "SELECT pg_advisory_lock(\(schemaLockClass), 0)",
        """
        CREATE TABLE IF NOT EXISTS classic_photos_results (
            name text PRIMARY KEY, data bytea NOT NULL, kept_at timestamptz NOT NULL DEFAULT now())
        """,
        """
        CREATE TABLE IF NOT EXISTS classic_photos_events (
            seq bigserial PRIMARY KEY, instance text NOT NULL, payload text NOT NULL,
            at timestamptz NOT NULL DEFAULT now())
        """,
        "SELECT pg_advisory_unlock(\(schemaLockClass), 0)",
    ]

    /// Creates what is missing, on `connection`.
    static func create(on connection: ClusterConnection) async throws(ClusterError) {
        do {
            for statement in statements { _ = try await connection.query(statement).get() }
        } catch {
            throw .schema(reason: error.clusterReason)
        }
    }
}
