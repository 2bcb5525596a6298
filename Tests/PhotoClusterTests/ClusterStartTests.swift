import Logging
@testable import PhotoCluster
import Testing
import PostgresNIO

/// What `--database-url` accepts, and the one-line reason an instance gives when it cannot start on
/// it. (The cluster itself runs against a real PostgreSQL in Tests/cluster.)
@Suite("Cluster: starting on a database")
struct ClusterStartTests {
    @Test func aPostgresURLGivesItsAddressWithoutThePassword() throws {
        let address = try DatabaseAddress("postgres://classic:s%40cret@127.0.0.1:5433/photos")
        #expect(address.description == "127.0.0.1:5433/photos")
        #expect(address.configuration.username == "classic")
        #expect(address.configuration.password == "s@cret")
        #expect(try DatabaseAddress("postgresql://classic@db").description == "db:5432/classic")
    }

    @Test(arguments: [
        ("http://classic:s3cret@db/x", "http://***@db/x", "expected postgres://user:password@host:port/database"),
        ("postgres://db/x", "postgres://db/x", "no user name"),
        ("postgres://classic:s3cret@/x", "postgres://***@/x", "no host"),
        ("postgress://classic:p@ss@db/x", "postgress://***@db/x", "expected postgres://user:password@host:port/database"),
    ])
    func aURLThatIsNotPostgresIsRefusedWithAReasonAndNoPassword(url: String, said: String, reason: String) {
        #expect {
            try DatabaseAddress(url)
        } throws: { error in
            "\(error)" == "--database-url \(said) is not usable: \(reason)" && !"\(error)".contains("s3cret")
        }
    }

    @Test func anUnreachableDatabaseIsAOneLineError() async throws {
        // Given a loopback port nothing listens on (1, privileged and unused)
        let url = "postgres://classic@127.0.0.1:1/photos"
        // Then starting fails at once, saying where and why
        await #expect {
            try await Cluster.connect(url: url, instance: "a", logger: Logger(label: "test"))
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("cannot reach PostgreSQL at 127.0.0.1:1/photos: ") && !text.contains("\n")
        }
    }

    @Test func lockKeysAreStableAcrossRuns() {
        // Every instance must name the same work with the same lock.
        #expect(PostgresWorkClaims.lockKey("download http://127.0.0.1/p.jpg") == PostgresWorkClaims.lockKey("download http://127.0.0.1/p.jpg"))
        #expect(PostgresWorkClaims.lockKey("") == Int32(bitPattern: 0x811c_9dc5))
        #expect(PostgresWorkClaims.lockKey("download a") != PostgresWorkClaims.lockKey("filtration a"))
    }
}
