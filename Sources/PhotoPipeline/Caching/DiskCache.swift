import Foundation
import Synchronization

/// Downloaded originals and sepia results kept on disk, so a restart does not fetch or filter again.
///
/// Files are written whole to a temporary name and renamed into place, so a crash mid-write leaves
/// no half file under a real name; leftovers are deleted at start. Bounded by `budget` bytes, least
/// recently used out first (a read refreshes a file's modification time). Writes happen on a serial
/// queue of their own, never on the caller's thread.
public final class DiskCache: Sendable {
    private struct Entry {
        var size: Int
        var lastUsed: Date
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var totalBytes = 0
        /// Bytes queued for writing, served from here until they are on disk (with the write's number).
        var writing: [String: (write: Int, data: Data)] = [:]
        var writes = 0
    }

    /// The folder the files live in.
    public let directory: URL
    /// The most bytes kept.
    public let budget: Int
    private let state = Mutex(State())
    private let writer = DispatchQueue(label: "classic-photos.disk-cache")

    /// Opens (creating if needed) the cache in `directory`, forgetting half-written leftovers.
    public init(directory: URL, budget: Int) throws {
        self.directory = directory
        self.budget = budget
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        var entries: [String: Entry] = [:]
        for url in try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) {
            let name = url.lastPathComponent
            guard !name.hasPrefix(".") else {
                try? FileManager.default.removeItem(at: url)  // an interrupted write
                continue
            }
            let values = try? url.resourceValues(forKeys: Set(keys))
            entries[name] = Entry(size: values?.fileSize ?? 0, lastUsed: values?.contentModificationDate ?? .distantPast)
        }
        let total = entries.values.reduce(0) { $0 + $1.size }
        state.withLock { $0 = State(entries: entries, totalBytes: total) }
    }

    /// Files held, and their bytes.
    public var usage: (files: Int, bytes: Int) {
        state.withLock { ($0.entries.count, $0.totalBytes) }
    }

    /// True when a file for `key` is there (or being written).
    public func contains(_ key: String) -> Bool {
        state.withLock { $0.entries[key] != nil }
    }

    /// The bytes for `key`, marking them recently used. Never waits for the writer: bytes still
    /// queued for writing are answered from memory.
    public func read(_ key: String) -> Data? {
        let (known, queued) = state.withLock { ($0.entries[key] != nil, $0.writing[key]?.data) }
        guard known else { return nil }
        if let queued { return queued }
        let url = directory.appendingPathComponent(key)
        guard let data = try? Data(contentsOf: url) else {
            forget(key)
            return nil
        }
        let now = Date()
        state.withLock { $0.entries[key]?.lastUsed = now }
        try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: url.path)
        return data
    }

    /// Stores `data` under `key` (atomically, in the background), evicting old files past the budget;
    /// returns the keys no longer held because of it (`key` itself when `data` alone is over the budget).
    @discardableResult
    public func write(_ data: Data, for key: String) -> [String] {
        guard data.count <= budget else { return contains(key) ? [] : [key] }
        let (write, evicted) = state.withLock { state -> (Int, [String]) in
            if let old = state.entries[key] { state.totalBytes -= old.size }
            state.entries[key] = Entry(size: data.count, lastUsed: Date())
            state.totalBytes += data.count
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
        let directory = directory
        writer.async {
            let temporary = directory.appendingPathComponent(".\(key).\(UUID().uuidString)")
            // rename(2) replaces the old file in one step: readers see the old bytes or the new, never a mix.
            if (try? data.write(to: temporary)) == nil
                || rename(temporary.path, directory.appendingPathComponent(key).path) != 0 {
                try? FileManager.default.removeItem(at: temporary)
            }
            for name in evicted {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
            self.state.withLock { state in
                // A newer write of the same key replaced the bytes; only its own completion clears them.
                if state.writing[key]?.write == write { state.writing[key] = nil }
            }
        }
        return evicted
    }

    /// Waits until every queued write is on disk (shutdown).
    public func flush() {
        writer.sync {}
    }

    private func forget(_ key: String) {
        state.withLock { state in
            if let entry = state.entries.removeValue(forKey: key) { state.totalBytes -= entry.size }
        }
    }
}
