extension EXIFReader {
    private static let thumbnailOffsetTag: UInt16 = 0x0201  // JPEGInterchangeFormat
    private static let thumbnailLengthTag: UInt16 = 0x0202  // JPEGInterchangeFormatLength

    /// The JPEG thumbnail a camera puts in `app1` (the marker's payload, starting "Exif\0\0"): IFD1's
    /// offset and length, checked to lie within the block. Nil when there is none or it is malformed.
    /// Only IFD0's link to IFD1 is followed: no chain to bound.
    public static func thumbnail(inAPP1 app1: some Collection<UInt8>) -> [UInt8]? {
        let bytes = Array(app1)
        guard bytes.starts(with: exifHeader), bytes.count >= exifHeader.count + 8 else { return nil }
        let tiff = Array(bytes[exifHeader.count...])
        let reader: Reader
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): reader = Reader(bytes: tiff, bigEndian: false)
        case (0x4D, 0x4D): reader = Reader(bytes: tiff, bigEndian: true)
        default: return nil
        }
        guard reader.uint16(at: 2) == 42, let ifd0 = reader.uint32(at: 4).map(Int.init),
              let count0 = reader.uint16(at: ifd0).map(Int.init),
              let ifd1 = reader.uint32(at: ifd0 + 2 + count0 * entrySize).map(Int.init), ifd1 > 0,
              let count1 = reader.uint16(at: ifd1).map(Int.init) else { return nil }
        var offset: Int?
        var length: Int?
        for index in 0..<count1 {
            let entry = ifd1 + 2 + index * entrySize
            guard let tag = reader.uint16(at: entry), let value = reader.uint32(at: entry + 8) else { return nil }
            if tag == thumbnailOffsetTag { offset = Int(value) }
            if tag == thumbnailLengthTag { length = Int(value) }
        }
        guard let offset, let length, length > 0, offset >= 8, offset <= tiff.count - length else { return nil }
        return Array(tiff[offset..<(offset + length)])
    }
}
