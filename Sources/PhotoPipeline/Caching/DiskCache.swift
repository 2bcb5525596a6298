public import Foundation
import Locking

/// Downloaded originals and sepia results kept on disk, so a restart does not fetch or filter again.
///
/// Each file carries its length and checksum (`CacheFileFormat`) and is written durably
/// (`DurableFile`): at start a file whose trailer does not fit is dropped, and a read that finds the
/// bytes changed drops the file too, so a damaged file is never served. Bounded by `budget` bytes,
/// least recently used out first (a read refreshes a file's modification time). Writes happen on a
/// serial queue of their own, never on the caller's thread; one that fails (a full or read-only
/// disk) is reported once per cause and its name given up, and later writes are tried as usual.
public final class DiskCache: Sendable {
    struct Entry {
        var size: Int
        var lastUsed: Date
    }

    struct State {
        var entries: [String: Entry] = [:]
        var totalBytes = 0
        /// Bytes queued for writing, served from here until they are on disk (with the write's number).
        var writing: [String: (write: Int, data: Data)] = [:]
        var writes = 0
        /// Why writes fail now, and the smallest write that failed; nil while they work. On a disk
        /// nearly full small files still fit while large ones fail: only a write at least as large
        /// as one that failed says writes work again.
        var writeProblem: (error: DurableFile.WriteError, size: Int)?
        /// Told the names a failed write or a damaged file took away.
        var lostHandler: (@Sendable ([String]) -> Void)?
    }

    /// The folder the files live in.
    public let directory: URL
    /// The most bytes kept.
    public let budget: Int
    let state = Locked(State())
    let report: @Sendable (DiskCacheEvent) -> Void
    private let writer = DispatchQueue(label: "classic-photos.disk-cache")

    /// Opens (creating if needed) the cache in `directory`: leftovers of interrupted writes are
    /// deleted and files whose trailer does not fit are dropped, each reported to `report` (called
    /// on whatever thread notices, never under a lock). A folder that cannot be made or read (a full
    /// disk) leaves the cache empty, with the problem reported and shown by `writeProblem`.
    public init(directory: URL, budget: Int, report: @escaping @Sendable (DiskCacheEvent) -> Void = { _ in }) {
        self.directory = directory
        self.budget = budget
        self.report = report
        let (entries, problem) = Self.scan(directory, report: report)
        let total = entries.values.reduce(0) { $0 + $1.size }
        state.withLock { $0 = State(entries: entries, totalBytes: total, writeProblem: problem.map { ($0, Self.probeSize) }) }
        if let problem { report(.writeFailed(cause: problem.description)) }
    }

    /// Files held, and their bytes.
    public var usage: (files: Int, bytes: Int) {
        state.withLock { ($0.entries.count, $0.totalBytes) }
    }

    /// Why writes fail now (a full or read-only disk), nil while they work.
    public var writeProblem: String? {
        state.withLock { $0.writeProblem?.error.description }
    }

    /// True when a file for `key` is there (or being written).
    public func contains(_ key: String) -> Bool {
        state.withLock { $0.entries[key] != nil }
    }

    /// Calls `handler` with the names no longer held because a write failed or a file was found
    /// damaged; on the writer's or the reader's thread, never under a lock.
    public func whenLost(_ handler: @escaping @Sendable ([String]) -> Void) {
        state.withLock { $0.lostHandler = handler }
    }

    /// The bytes for `key`, checked against their checksum, marking them recently used. Never waits
    /// for the writer: bytes still queued for writing are answered from memory.
    public func read(_ key: String) -> Data? {
        let (known, queued) = state.withLock { ($0.entries[key] != nil, $0.writing[key]?.data) }
        guard known else { return nil }
        if let queued { return queued }
        let url = directory.appendingPathComponent(key)
        guard let file = try? Data(contentsOf: url) else {
            forget(key)
            return nil
        }
        switch CacheFileFormat.decode(file) {
        case .failure(let damage):
            drop(key, because: damage)
            return nil
        case .success(let data):
            let now = Date()
            state.withLock { $0.entries[key]?.lastUsed = now }
            try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: url.path)
            return data
        }
    }

    /// Stores `data` under `key` (durably, in the background), evicting old files past the budget;
    /// returns the keys no longer held because of it (`key` itself when `data` alone is over the budget).
    @discardableResult
    public func write(_ data: Data, for key: String) -> [String] {
        let size = data.count + CacheFileFormat.trailerLength
        guard size <= budget else { return contains(key) ? [] : [key] }
        let (write, evicted) = state.withLock { state -> (Int, [String]) in
            if let old = state.entries[key] { state.totalBytes -= old.size }
            state.entries[key] = Entry(size: size, lastUsed: Date())
            state.totalBytes += size
            state.writes += 1
            state.writing[key] = (state.writes, data)
            var evicted: [String] = []
            guard state.totalBytes > budget else { return (state.writes, evicted) }
            let oldestFirst = state.entries.filter { $0.key != key }.sorted { $0.value.lastUsed < $1.value.lastUsed }
            for (name, entry) in oldestFirst where state.totalBytes > budget {
                state.entries[name] = nil
                state.totalBytes -= entry.size
                evicted.append(name)
            }
            return (state.writes, evicted)
        }
        writer.async { [self] in
            let outcome = Result { () throws(DurableFile.WriteError) in
                try DurableFile.write(CacheFileFormat.encode(data), as: key, in: directory)
            }
            for name in evicted {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
            finish(write, of: key, size: size, outcome)
        }
        return evicted
    }

    /// Forgets every file (a cold start) and returns once they are deleted: the deletion is queued
    /// behind the writes handed over before, so none of those is left on disk; a later write is kept.
    public func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.writing.removeAll()
            state.totalBytes = 0
        }
        writer.sync {
            let manager = FileManager.default
            for name in (try? manager.contentsOfDirectory(atPath: directory.path)) ?? [] {
                try? manager.removeItem(at: directory.appendingPathComponent(name))
            }
        }
    }

    /// Waits until every queued write is on disk (shutdown).
    public func flush() {
        writer.sync {}
    }
}
