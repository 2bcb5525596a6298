/// Why an image could not be decoded, processed or encoded; `description` is for people, `detail` for logs.
public enum ImageCodecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The data is neither a JPEG nor a PNG; `leadingBytes` are its first bytes in hex.
    case notAnImage(leadingBytes: String)
    /// A known kind of file this decoder does not read (WebP, GIF, HEIC, a web page...), told by its magic bytes.
    case unsupportedFormat(ForeignFormat)
    /// The header declares more pixels than the decode limits allow.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// The data claims to be `format` but the codec library rejected it.
    case corrupt(format: ImageFormat, reason: String)
    /// Valid data this decoder cannot or will not handle, including resource limits other than pixels.
    case unsupported(format: ImageFormat, reason: String)
    /// The encoder failed.
    case encodingFailed(format: ImageFormat, reason: String)
    /// The caller's cancellation check asked to stop.
    case cancelled

    /// A one-line reason written for people, e.g. "The image is cut short (truncated JPEG)"; `detail` keeps the technical text.
    public var description: String {
        switch self {
        case .notAnImage(let leadingBytes):
            leadingBytes.isEmpty ? "The file is empty" : "This is not an image (JPEG and PNG are supported)"
        case .unsupportedFormat(let format):
            format.reason
        case .tooManyPixels(let width, let height, let limit):
            "The image is too large: \(width)x\(height) is \(Self.megapixels(width * height)) megapixels "
                + "(the limit is \(Self.megapixels(limit)))"
        case .corrupt(let format, let reason) where Self.isTruncation(reason):
            "The image is cut short (truncated \(format.displayName))"
        case .corrupt(let format, _):
            "The image is damaged (corrupt \(format.displayName))"
        case .unsupported(let format, _):
            "This kind of \(format.displayName) is not supported"
        case .encodingFailed(let format, _):
            "The image could not be written as \(format.displayName)"
        case .cancelled:
            "Cancelled"
        }
    }

    /// The technical detail behind `description`, for logs and a `detail` field: the codec library's text, leading bytes.
    public var detail: String {
        switch self {
        case .notAnImage(let leadingBytes):
            leadingBytes.isEmpty ? "not a JPEG or PNG image (empty)"
                : "not a JPEG or PNG image (its first bytes match no known format)"
        case .unsupportedFormat(let format):
            "\(format.rawValue.uppercased()) recognised by its magic bytes; only JPEG and PNG are decoded"
        case .tooManyPixels(let width, let height, let limit):
            "image is \(width)x\(height) (\(Self.megapixels(width * height)) megapixels), "
                + "over the limit of \(Self.megapixels(limit)) megapixels"
        case .corrupt(let format, let reason):
            "corrupt \(format.displayName): \(reason)"
        case .unsupported(let format, let reason):
            "unsupported \(format.displayName): \(reason)"
        case .encodingFailed(let format, let reason):
            "could not encode \(format.displayName): \(reason)"
        case .cancelled:
            "cancelled"
        }
    }

    /// Whether a library's message says the data ended early (libjpeg's JWRN_JPEG_EOF, libpng's and zlib's EOF texts).
    private static func isTruncation(_ reason: String) -> Bool {
        let lowered = reason.lowercased()
        return ["premature end", "unexpected end", "not enough image data", "truncated", "read error"]
            .contains { lowered.contains($0) }
    }

    /// Whole megapixels when that is precise enough, else one decimal.
    private static func megapixels(_ pixels: Int) -> String {
        if pixels % 1_000_000 == 0 || pixels >= 10_000_000 {
            return String(Int((Double(pixels) / 1_000_000).rounded()))
        }
        let tenths = Int((Double(pixels) / 100_000).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `.unsupportedFormat` when the magic bytes name a known kind, else `.notAnImage` naming its first four bytes.
    static func notAnImage(startingWith data: some Collection<UInt8>) -> ImageCodecError {
        if let foreign = ForeignFormat(sniffing: data) { return .unsupportedFormat(foreign) }
        let hex = data.prefix(4).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }
        return .notAnImage(leadingBytes: hex.joined(separator: " "))
    }
}
