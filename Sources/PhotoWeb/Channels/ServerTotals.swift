import PhotoPipeline

/// A channel's totals (`event: stats`, `GET /api/stats`, a stream's snapshot), built here only: the
/// page replaces its totals whole with each `stats` event, so a field one of them left out (the
/// database's status, whose banner the page shows) would vanish at the next tick.
struct ServerTotals: Sendable {
    /// The other instances' PostgreSQL, when configured and the channel's pipeline shares it (the list's).
    let cluster: (any ClusterMembership)?
    /// The unsent event bytes of every viewer, reported with the list's totals (nil: not reported).
    let unsent: UnsentEventBytes?

    /// The totals of `pipeline` now, driven by `viewers` viewers, with the server's own figures.
    func stats(of pipeline: PhotoPipeline, viewers: Int) -> EventPayloads.Stats {
        var stats = EventPayloads.Stats(pipeline.stats, viewers: viewers, configuration: pipeline.configuration)
        stats.database = cluster?.databaseStatus
        stats.unsentEventBytes = unsent?.bytes
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
