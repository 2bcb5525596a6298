import PhotoPipeline

/// The server totals (`event: stats`, `GET /api/stats`, a stream's snapshot), built here only: the
/// page replaces its totals whole with each `stats` event, so a field one of them left out (the
/// database's status, whose banner the page shows) would vanish at the next tick.
struct ServerTotals: Sendable {
    let viewers: ViewerRegistry
    /// The other instances' PostgreSQL, when configured.
    let cluster: (any ClusterMembership)?

    /// The totals of `pipeline` now, with the server's own figures.
    func stats(of pipeline: PhotoPipeline) -> EventPayloads.Stats {
        var stats = EventPayloads.Stats(pipeline.stats, viewers: viewers.count, configuration: pipeline.configuration)
        stats.database = cluster?.databaseStatus
        stats.unsentEventBytes = viewers.unsent.bytes
        return stats
    }

    /// Whether `stats` says something `previous` did not, and so is worth an event. The unsent bytes
    /// alone are not: sending an event changes them, so every tick would send one.
    static func changed(_ stats: EventPayloads.Stats, from previous: EventPayloads.Stats?) -> Bool {
        guard var previous else { return true }
        previous.unsentEventBytes = stats.unsentEventBytes
        return previous != stats
    }
}
