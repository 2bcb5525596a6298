import Foundation
import Hummingbird
import PhotoPipeline

/// `GET /healthz`: 200 once the photo list is loaded, 503 while it loads or when it failed. With
/// a database, also this instance's name and whether PostgreSQL is connected or lost (still 200
/// when lost: the instance serves what it has).
struct HealthHandler: Sendable {
    let context: AppContext

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let source = context.library.source
        let store = context.library.pipeline?.resultStore
        let cache = store.flatMap { $0.configured ? Health.Cache(writable: $0.problem == nil, problem: $0.problem) : nil }
        let health = Health(source: source, cluster: context.cluster.map(Health.Cluster.init), cache: cache)
        guard source.status == "ready" else { throw NotReady(health: health) }
        return .json(health)
    }

    /// The list not loaded (yet, or ever): 503 with the same body, the status chosen where errors become HTTP.
    private struct NotReady: HTTPResponseError {
        let health: Health
        var status: HTTPResponse.Status { .serviceUnavailable }

        func response(from request: Request, context: some RequestContext) throws -> Response {
            .json(health, status: status)
        }
    }

    /// The list's status, with the cluster's fields and whether results can be kept beside it.
    private struct Health: Encodable {
        /// `"cache": {"writable": false, "problem": "write: No space left on device"}` on a full disk.
        struct Cache: Encodable {
            let writable: Bool
            let problem: String?
        }

        /// With a database: `"instance"`, `"database": "connected"|"lost"` and `"waitingFor"`.
        struct Cluster: Encodable {
            let instance: String
            let database: String
            let waitingFor: Int

            init(_ membership: any ClusterMembership) {
                (instance, database, waitingFor) = (membership.instance, membership.databaseStatus, membership.waitingFor)
            }
        }

        let source: EventPayloads.Source
        let cluster: Cluster?
        let cache: Cache?

        private enum CodingKeys: String, CodingKey { case cache }

        func encode(to encoder: any Encoder) throws {
            try source.encode(to: encoder)
            try cluster?.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(cache, forKey: .cache)
        }
    }
}

/// `GET /metrics`: Prometheus text exposition.
struct MetricsHandler: Sendable {
    let context: AppContext

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let text = context.metrics.exposition(
            stats: context.library.pipeline?.stats, viewers: context.viewers.count(in: context.list),
            unsentEventBytes: context.viewers.unsent.bytes)
        return Compression.response(
            Data(text.utf8), contentType: "text/plain; version=0.0.4; charset=utf-8", headers: [.cacheControl: "no-store"], for: request)
    }
}
