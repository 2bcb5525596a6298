import PhotoCluster
import PhotoWeb

/// The cluster as the HTTP layer sees it: this instance's name and the database's status.
struct ClusterLink: ClusterMembership {
    let cluster: Cluster

    var instance: String { cluster.instance }
    var databaseStatus: String { cluster.health.database }
    var waitingFor: Int { cluster.health.waitingFor }
}
