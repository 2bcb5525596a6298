public import Foundation

extension SamplePhoto {
    /// `jpeg` with an Exif APP1 block right after SOI whose IFD0 holds one SHORT orientation entry, as a
    /// phone writes it; for tests, seeds and samples. `orientation` is written as given, in range or not.
    public static func tagged(_ jpeg: Data, orientation: Int, bigEndian: Bool = true) -> Data {
        let payload = exifBlock(orientation: orientation, bigEndian: bigEndian)
        let length = payload.count + 2
        return jpeg.prefix(2) + Data([0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload) + jpeg.dropFirst(2)
    }

    /// The APP1 payload: "Exif\0\0" and a TIFF header (Motorola or Intel byte order) with that one entry.
    public static func exifBlock(orientation: Int, bigEndian: Bool = true) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] {
            bigEndian ? [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
        }
        func u32(_ value: Int) -> [UInt8] { bigEndian ? u16(value >> 16) + u16(value) : u16(value) + u16(value >> 16) }
        let order: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        let tiff = order + u16(42) + u32(8) + u16(1) + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0) + u32(0)
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// `jpeg` with an Exif APP1 block right after SOI as a camera writes one: IFD0 with the orientation
    /// (upright), IFD1 pointing at `thumbnail`, a small JPEG of the same photo, which follows the IFDs.
    public static func withEXIFThumbnail(_ jpeg: Data, thumbnail: Data) -> Data {
        func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func u32(_ value: Int) -> [UInt8] { u16(value >> 16) + u16(value) }
        // TIFF header (8), IFD0: one entry and the next IFD's offset (18), IFD1: two entries (30).
        let ifd1 = 8 + 18
        let thumbnailOffset = ifd1 + 30
        let tiff = [0x4D, 0x4D] + u16(42) + u32(8)
            + u16(1) + u16(0x0112) + u16(3) + u32(1) + u16(1) + u16(0) + u32(ifd1)
            + u16(2) + u16(0x0201) + u16(4) + u32(1) + u32(thumbnailOffset)
            + u16(0x0202) + u16(4) + u32(1) + u32(thumbnail.count) + u32(0)
        let payload = Array("Exif".utf8) + [0, 0] + tiff + Array(thumbnail)
        let length = payload.count + 2
        return jpeg.prefix(2) + Data([0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload) + jpeg.dropFirst(2)
    }
}
