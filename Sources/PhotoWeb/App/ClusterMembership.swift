import HTTPTypes

/// The instances' shared database as the HTTP layer sees it: this instance's name and how the
/// database stands (`PhotoServer` hands in PhotoCluster's `Cluster`).
public protocol ClusterMembership: Sendable {
    /// This instance's name among the others.
    var instance: String { get }
    /// `connected`, or `lost` while the database is unreachable (the instance serves what it has).
    var databaseStatus: String { get }
    /// Photos whose work another instance holds, waited for here.
    var waitingFor: Int { get }
}

extension AppContext {
    /// The edge's sticky cookie: set with every new viewer (`GET /`, `POST /api/viewers`) so that the
    /// viewer's page, event stream and viewport reports reach this instance (deploy/nginx/cluster.conf
    /// chooses the upstream by it). A page whose instance went away gets a new viewer elsewhere, and
    /// the cookie follows it there.
    func stickyHeaders(_ headers: HTTPFields = [:]) -> HTTPFields {
        guard let cluster else { return headers }
        var headers = headers
        headers[.setCookie] = "classic_photos_instance=\(cluster.instance); Path=/; SameSite=Lax; HttpOnly"
        return headers
    }
}
