import Foundation
import Glibc

/// Writes a file so that after a crash or a power loss its name holds either the old bytes or all
/// the new ones: write to a temporary name, `fsync`, rename into place, `fsync` the folder (which
/// makes the rename itself durable).
enum DurableFile {
    /// A system call that failed, with the system's reason: what a full or read-only disk reports.
    struct WriteError: Error, Equatable, CustomStringConvertible {
        /// What was being done ("write", "rename", ...).
        let step: String
        /// The errno, which tells one cause from another (ENOSPC, EROFS, EACCES).
        let code: Int32

        var description: String { "\(step): \(String(cString: strerror(code)))" }
    }

    /// Prefix of every temporary name: files starting with it are leftovers of an interrupted write.
    static let temporaryPrefix = "."

    /// Writes `data` as `name` in `directory` by way of a temporary file, which is removed on failure.
    static func write(_ data: Data, as name: String, in directory: URL) throws(WriteError) {
        let temporary = directory.appendingPathComponent("\(temporaryPrefix)\(name).\(UUID().uuidString)").path
        let target = directory.appendingPathComponent(name).path
        do throws(WriteError) {
            try writeAndSync(data, to: temporary)
            guard rename(temporary, target) == 0 else { throw WriteError(step: "rename", code: errno) }
        } catch {
            unlink(temporary)
            throw error
        }
        try syncFolder(directory.path)
    }

    private static func writeAndSync(_ data: Data, to path: String) throws(WriteError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw WriteError(step: "create", code: errno) }
        defer { close(descriptor) }
        let failure: WriteError? = data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return WriteError(step: "write", code: written < 0 ? errno : EIO) }
                offset += written
            }
            return nil
        }
        if let failure { throw failure }
        guard fsync(descriptor) == 0 else { throw WriteError(step: "fsync", code: errno) }
    }

    private static func syncFolder(_ path: String) throws(WriteError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw WriteError(step: "open folder", code: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw WriteError(step: "fsync folder", code: errno) }
    }
}
