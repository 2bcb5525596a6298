public import Foundation
import Logging
import NIOCore
public import PhotoPipeline
import PostgresNIO
import Locking

/// Results every instance serves, in one PostgreSQL table: originals, sepia thumbnails, previews and
/// full-size sepia images, by the same names the disk cache uses, so that every instance answers
/// with the same bytes and the same ETag.
///
/// The names held are known locally (read at start and after a reconnect, kept up to date from each
/// write's `NOTIFY`), so `contains` never waits; `isHeld` and `read` ask the database. A write is
/// sent on the instance's session at once and answered from memory until it is in: a claim given
/// back after it follows it on the same session, so whoever takes the work next finds the result.
public final class PostgresResultStore: ResultStoring {
    private struct State {
        var names: Set<String> = []
        /// Bytes sent but not yet in, with the write's number.
        var writing: [String: (write: Int, data: Data)] = [:]
        var writes = 0
    }

    private let session: ClusterConnection
    private let reader: ClusterConnection
    private let logger: Logger
    private let state = Locked(State())

    init(session: ClusterConnection, reader: ClusterConnection, logger: Logger) {
        self.session = session
        self.reader = reader
        self.logger = logger
    }

    public func contains(_ name: String) -> Bool {
        state.withLock { $0.names.contains(name) }
    }

    public func isHeld(_ name: String) -> Bool {
        if contains(name) { return true }
        guard let rows = try? reader.blocking("SELECT EXISTS (SELECT 1 FROM classic_photos_results WHERE name = \(name))"),
              (try? rows.first?.decode(Bool.self)) == true else { return false }
        noteHeld(name)
        return true
    }

    public func read(_ name: String) -> Data? {
        let queued = state.withLock { $0.writing[name]?.data }
        if let queued { return queued }
        do {
            let rows = try reader.blocking("SELECT data FROM classic_photos_results WHERE name = \(name)")
            return try rows.first?.decode(Data.self)
        } catch {
            logger.warning("result not read from the database", metadata: ["name": "\(name)", "reason": "\(error.clusterReason)"])
            return nil
        }
    }

    /// Nothing is evicted here: the table holds what the cluster made (see the README).
    @discardableResult
    public func write(_ data: Data, for name: String) -> [String] {
        let write = state.withLock { state in
            state.names.insert(name)
            state.writes += 1
            state.writing[name] = (state.writes, data)
            return state.writes
        }
        let query: PostgresQuery = """
            WITH kept AS (
                INSERT INTO classic_photos_results (name, data) VALUES (\(name), \(ByteBuffer(bytes: data)))
                ON CONFLICT (name) DO UPDATE SET data = excluded.data, kept_at = now() RETURNING name)
            SELECT pg_notify('classic_photos_results', name) FROM kept
            """
        session.query(query).whenComplete { [self] result in
            if case .failure(let error) = result {
                logger.warning("result not kept in the database", metadata: ["name": "\(name)", "reason": "\(error.clusterReason)"])
            }
            self.state.withLock { state in
                if state.writing[name]?.write == write { state.writing[name] = nil }
            }
        }
        return []
    }

    /// Waits until every write sent so far is in (or failed).
    public func flush() {
        _ = try? session.blocking("SELECT 1")
    }

    /// Another instance (or this one) kept `name`.
    func noteHeld(_ name: String) {
        _ = state.withLock { $0.names.insert(name) }
    }

    /// Reads the names held from the database (at start, after a reconnect, when a claim was let go).
    /// Returns the names that were not known.
    @discardableResult
    func reload() async -> [String] {
        guard let rows = try? await reader.query("SELECT name FROM classic_photos_results").get() else { return [] }
        let names = rows.compactMap { try? $0.decode(String.self) }
        return state.withLock { state in
            let new = names.filter { !state.names.contains($0) }
            state.names.formUnion(new)
            return new
        }
    }
}
