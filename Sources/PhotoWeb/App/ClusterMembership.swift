import HTTPTypes
import PhotoCluster

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
