import Foundation

/// A body as it arrives, in append-only storage: bytes once written are never written again, so the
/// bytes so far can be handed out as `Data` that shares the storage instead of copying it. Storage
/// grows by doubling (or is reserved for a declared length), so a body of n bytes is copied less than
/// n bytes in all (and once more when kept, if its length was not declared), however often its bytes
/// so far are handed out. Loop thread only (the views it hands out may be read on any thread:
/// appends never touch the bytes they show).
final class ArrivedBody {
    /// One allocation, freed when the body and the last view of it have let go. Unchecked: its
    /// pointer never changes, and each byte is written once, before any view shows it.
    private final class Storage: @unchecked Sendable {
        let bytes: UnsafeMutableRawPointer
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            bytes = .allocate(byteCount: max(1, capacity), alignment: 16)
        }

        deinit { bytes.deallocate() }
    }

    private var storage = Storage(capacity: 0)
    /// Bytes held.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// The bytes so far, sharing the storage: later appends do not change them.
    var bytes: Data {
        guard count > 0 else { return Data() }
        let storage = storage
        // Data(bytesNoCopy:) never writes to the bytes: a mutation of the view copies them first.
        return Data(bytesNoCopy: storage.bytes, count: count, deallocator: .custom { _, _ in withExtendedLifetime(storage) {} })
    }

    /// The bytes so far, for keeping: a view when they fill the storage (a declared length reserved
    /// it), else a copy that fits them, since a view would keep up to twice their size alive.
    var compacted: Data {
        count == storage.capacity ? bytes : Data(bytes: storage.bytes, count: count)
    }

    /// Makes room for `capacity` bytes in all, so that appends up to it copy nothing.
    func reserveCapacity(_ capacity: Int) {
        guard capacity > storage.capacity else { return }
        let grown = Storage(capacity: capacity)
        grown.bytes.copyMemory(from: storage.bytes, byteCount: count)
        storage = grown
    }

    /// Appends `bytes`, growing the storage to twice its size (or more) when they do not fit.
    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if count + bytes.count > storage.capacity {
            reserveCapacity(max(count + bytes.count, storage.capacity * 2, 16 * 1_024))
        }
        (storage.bytes + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Appends the bytes of `data`.
    func append(_ data: Data) {
        data.withUnsafeBytes { append($0) }
    }

    /// Drops every byte (views handed out keep theirs).
    func removeAll() {
        storage = Storage(capacity: 0)
        count = 0
    }
}
