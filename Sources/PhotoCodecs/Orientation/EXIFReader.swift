/// Reads the orientation from an APP1 Exif block: untrusted bytes, so every offset is checked and
/// only IFD0 is read (no IFD chain or sub-IFD is followed, so no loop or recursion to bound); the
/// thumbnail's IFD1, one link further, in `EXIFReader+Thumbnail.swift`.
public enum EXIFReader {
    static let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]  // "Exif\0\0"
    private static let orientationTag: UInt16 = 0x0112
    private static let shortType: UInt16 = 3
    static let entrySize = 12

    /// The orientation in `app1` (the marker's payload, starting "Exif\0\0"); nil when absent, malformed or out of range.
    public static func orientation(inAPP1 app1: some Collection<UInt8>) -> ImageOrientation? {
        let bytes = Array(app1)
        guard bytes.starts(with: exifHeader) else { return nil }
        return orientation(inTIFF: bytes[exifHeader.count...])
    }

    /// The orientation in a TIFF structure (byte order mark, 42, IFD0 offset, IFD0).
    static func orientation(inTIFF tiff: ArraySlice<UInt8>) -> ImageOrientation? {
        let tiff = Array(tiff)
        guard tiff.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        let reader = Reader(bytes: tiff, bigEndian: bigEndian)
        guard reader.uint16(at: 2) == 42, let ifd = reader.uint32(at: 4).map(Int.init),
              let count = reader.uint16(at: ifd).map(Int.init) else { return nil }
        for index in 0..<count {
            let entry = ifd + 2 + index * entrySize
            guard let tag = reader.uint16(at: entry) else { return nil }
            guard tag == orientationTag else { continue }
            guard reader.uint16(at: entry + 2) == shortType, let valueCount = reader.uint32(at: entry + 4), valueCount >= 1,
                  let value = reader.uint16(at: entry + 8) else { return nil }
            return ImageOrientation(rawValue: Int(value))
        }
        return nil
    }

    /// Bounds-checked integer reads in the file's byte order.
    struct Reader {
        let bytes: [UInt8]
        let bigEndian: Bool

        func uint16(at offset: Int) -> UInt16? {
            guard offset >= 0, offset <= bytes.count - 2 else { return nil }
            let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }

        func uint32(at offset: Int) -> UInt32? {
            guard let first = uint16(at: offset), let second = uint16(at: offset + 2) else { return nil }
            return bigEndian ? UInt32(first) << 16 | UInt32(second) : UInt32(second) << 16 | UInt32(first)
        }
    }
}
