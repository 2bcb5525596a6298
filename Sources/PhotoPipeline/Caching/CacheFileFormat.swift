import Foundation

/// How a cache file is laid out: the bytes, then a 24-byte trailer with their length, their FNV-1a
/// checksum and a magic word, so that a file cut short, emptied, overwritten or from an older
/// layout is told from a whole one before it is trusted.
enum CacheFileFormat {
    static let trailerLength = 24
    /// "CPCache1", the trailer's last 8 bytes.
    private static let magic: UInt64 = 0x3165_6863_6143_5043

    /// `data` with its trailer.
    static func encode(_ data: Data) -> Data {
        var file = data
        for word in [UInt64(data.count), checksum(data), magic] {
            withUnsafeBytes(of: word.littleEndian) { file.append(contentsOf: $0) }
        }
        return file
    }

    /// Whether a file of `size` bytes ending in `trailer` (its last 24 bytes) declares its own
    /// length: the check made for every file at start, without reading the bytes.
    static func trailerFits(_ trailer: Data, fileSize: Int) -> Bool {
        guard trailer.count == trailerLength, let fields = words(of: trailer) else { return false }
        return fields.magic == magic && fields.length == UInt64(fileSize - trailerLength)
    }

    /// The bytes of a whole file, or why it is not one.
    static func decode(_ file: Data) -> Result<Data, CacheFileDamage> {
        guard file.count >= trailerLength, let fields = words(of: file.suffix(trailerLength)), fields.magic == magic else {
            return .failure(.noTrailer(size: file.count))
        }
        let data = file.prefix(file.count - trailerLength)
        guard fields.length == UInt64(data.count) else {
            return .failure(.wrongLength(declared: Int(clamping: fields.length), found: data.count))
        }
        guard fields.checksum == checksum(data) else { return .failure(.wrongChecksum) }
        return .success(Data(data))
    }

    private static func words(of trailer: Data) -> (length: UInt64, checksum: UInt64, magic: UInt64)? {
        let bytes = [UInt8](trailer)
        guard bytes.count == trailerLength else { return nil }
        func word(_ at: Int) -> UInt64 {
            bytes[at..<(at + 8)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
        return (word(0), word(8), word(16))
    }

    /// FNV-1a over `data`: catches cut, shifted and overwritten bytes (not a defence against forgery,
    /// which needs write access to the cache folder anyway).
    private static func checksum(_ data: some DataProtocol) -> UInt64 {
        ContentHash.value(of: data)
    }
}

/// Why a cache file is not trusted.
enum CacheFileDamage: Error, Equatable, CustomStringConvertible {
    /// Too short for a trailer, or its end is not one (an empty file, random bytes, an older layout).
    case noTrailer(size: Int)
    /// The trailer declares another length than the file has (cut short, or grown).
    case wrongLength(declared: Int, found: Int)
    /// The bytes are not the ones the checksum was made of.
    case wrongChecksum

    var description: String {
        switch self {
        case .noTrailer(let size): size == 0 ? "empty file" : "no cache trailer (\(size) bytes)"
        case .wrongLength(let declared, let found): "\(found) bytes where \(declared) were written"
        case .wrongChecksum: "checksum mismatch"
        }
    }
}
