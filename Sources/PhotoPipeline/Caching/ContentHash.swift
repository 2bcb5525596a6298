public import Foundation

/// A stable 64-bit FNV-1a hash in hex: ETags and cache file names that survive a restart.
public enum ContentHash {
    /// The hash of `data`.
    public static func of(_ data: Data) -> String {
        String(value(of: data), radix: 16)
    }

    /// The hash of a string's UTF-8 bytes.
    public static func of(_ text: String) -> String {
        of(Data(text.utf8))
    }

    /// The hash of `data` as a number (cache files' checksums).
    static func value(of data: some DataProtocol) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for region in data.regions {
            region.withUnsafeBytes { bytes in
                for byte in bytes {
                    hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
                }
            }
        }
        return hash
    }
}
