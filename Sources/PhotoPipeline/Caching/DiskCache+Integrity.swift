import Foundation
import Locking

/// What the disk cache tells its owner: for the log, once per cause, and for `/healthz`.
public enum DiskCacheEvent: Sendable, Equatable, CustomStringConvertible {
    /// A file was not trusted and was deleted; its photo is worked on again when next wanted.
    case damaged(name: String, reason: String)
    /// Writes started failing for `cause` (logged once, however many fail the same way).
    case writeFailed(cause: String)
    /// A write worked again after failures.
    case writesRecovered

    public var description: String {
        switch self {
        case .damaged(let name, let reason): "cache file \(name) dropped: \(reason)"
        case .writeFailed(let cause): "cache writes fail (\(cause)): results are kept in memory only"
        case .writesRecovered: "cache writes work again"
        }
    }
}

extension DiskCache {
    /// The files of `directory` whose trailer fits, by name; interrupted writes are deleted and
    /// damaged files dropped (and reported). A folder that cannot be made or read gives no files and
    /// the reason.
    static func scan(
        _ directory: URL, report: @Sendable (DiskCacheEvent) -> Void
    ) -> (entries: [String: Entry], problem: DurableFile.WriteError?) {
        let manager = FileManager.default
        guard (try? manager.createDirectory(at: directory, withIntermediateDirectories: true)) != nil else {
            return ([:], DurableFile.WriteError(step: "create folder", code: errno == 0 ? EIO : errno))
        }
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        guard let urls = try? manager.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) else {
            return ([:], DurableFile.WriteError(step: "read folder", code: errno == 0 ? EIO : errno))
        }
        var entries: [String: Entry] = [:]
        for url in urls {
            let name = url.lastPathComponent
            guard !name.hasPrefix(DurableFile.temporaryPrefix) else {
                try? manager.removeItem(at: url)  // an interrupted write
                continue
            }
            let values = try? url.resourceValues(forKeys: Set(keys))
            let size = values?.fileSize ?? 0
            guard let trailer = lastBytes(of: url, count: CacheFileFormat.trailerLength, size: size),
                  CacheFileFormat.trailerFits(trailer, fileSize: size) else {
                try? manager.removeItem(at: url)
                report(.damaged(name: name, reason: "\(CacheFileDamage.noTrailer(size: size)) at start"))
                continue
            }
            entries[name] = Entry(size: size, lastUsed: values?.contentModificationDate ?? .distantPast)
        }
        // A full or read-only disk is found now, not at the first photo: `/healthz` says so from the start.
        do throws(DurableFile.WriteError) {
            try DurableFile.write(Data(count: probeSize), as: "\(DurableFile.temporaryPrefix)writable", in: directory)
            try? manager.removeItem(at: directory.appendingPathComponent("\(DurableFile.temporaryPrefix)writable"))
        } catch {
            return (entries, error)
        }
        return (entries, nil)
    }

    /// The bytes written at start to learn whether the disk takes any: a page, since an empty file
    /// needs no space and so would not tell a full disk.
    static let probeSize = 4096

    private static func lastBytes(of url: URL, count: Int, size: Int) -> Data? {
        guard size >= count, let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: UInt64(size - count))) != nil else { return nil }
        return try? handle.read(upToCount: count)
    }

    /// Ends write number `write` of `key` (`size` bytes): a failure gives the name up (unless a newer
    /// write of it is queued) and is reported when its cause is new; a success as large as the
    /// smallest failure is reported as the end of the problem. Writer queue.
    func finish(_ write: Int, of key: String, size: Int, _ outcome: Result<Void, DurableFile.WriteError>) {
        let (lost, event, handler) = state.withLock { state -> ([String], DiskCacheEvent?, (@Sendable ([String]) -> Void)?) in
            // A newer write of the same key replaced the bytes; only its own completion clears them.
            let isLatest = state.writing[key]?.write == write
            if isLatest { state.writing[key] = nil }
            switch outcome {
            case .success:
                guard let problem = state.writeProblem, size >= problem.size else { return ([], nil, nil) }
                state.writeProblem = nil
                return ([], .writesRecovered, nil)
            case .failure(let error):
                let known = state.writeProblem?.error.code == error.code
                state.writeProblem = (error, known ? min(size, state.writeProblem?.size ?? size) : size)
                let event: DiskCacheEvent? = known ? nil : .writeFailed(cause: error.description)
                guard isLatest, let entry = state.entries.removeValue(forKey: key) else { return ([], event, nil) }
                state.totalBytes -= entry.size
                return ([key], event, state.lostHandler)
            }
        }
        if case .failure = outcome, !lost.isEmpty {
            // An older file under this name is not the bytes the pipeline meant to keep.
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(key))
        }
        if let event { report(event) }
        if !lost.isEmpty { handler?(lost) }
    }

    /// Deletes `key`'s file, whose bytes did not check out, and says so.
    func drop(_ key: String, because damage: CacheFileDamage) {
        let handler = state.withLock { state in
            if let entry = state.entries.removeValue(forKey: key) { state.totalBytes -= entry.size }
            return state.lostHandler
        }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(key))
        report(.damaged(name: key, reason: damage.description))
        handler?([key])
    }

    /// Forgets `key`, whose file is gone.
    func forget(_ key: String) {
        state.withLock { state in
            if let entry = state.entries.removeValue(forKey: key) { state.totalBytes -= entry.size }
        }
    }
}
