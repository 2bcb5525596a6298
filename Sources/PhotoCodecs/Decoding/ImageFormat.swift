/// The encoded image formats PhotoCodecs reads and writes.
public enum ImageFormat: String, Sendable {
    /// JPEG (JFIF/Exif), decoded and encoded by libjpeg-turbo.
    case jpeg
    /// PNG, decoded and encoded by libpng.
    case png

    private static let jpegMagic: [UInt8] = [0xFF, 0xD8, 0xFF]
    private static let pngMagic: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Recognises the format from the leading magic bytes; nil when it is neither.
    public init?(sniffing data: some Collection<UInt8>) {
        if data.starts(with: Self.jpegMagic) {
            self = .jpeg
        } else if data.starts(with: Self.pngMagic) {
            self = .png
        } else {
            return nil
        }
    }

    /// The media type for a Content-Type header.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        }
    }

    /// The name used in messages.
    var displayName: String { rawValue.uppercased() }
}
