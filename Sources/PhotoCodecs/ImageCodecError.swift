/// Why an image could not be decoded, processed or encoded.
public enum ImageCodecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The data is neither a JPEG nor a PNG; `leadingBytes` are its first bytes in hex.
    case notAnImage(leadingBytes: String)
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

    /// A readable one-line message.
    public var description: String {
        switch self {
        case .notAnImage(let leadingBytes):
            leadingBytes.isEmpty ? "not a JPEG or PNG image (empty)"
                : "not a JPEG or PNG image (starts with \(leadingBytes))"
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

    /// Whole megapixels when that is precise enough, else one decimal.
    private static func megapixels(_ pixels: Int) -> String {
        if pixels % 1_000_000 == 0 || pixels >= 10_000_000 {
            return String(Int((Double(pixels) / 1_000_000).rounded()))
        }
        let tenths = Int((Double(pixels) / 100_000).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `.notAnImage` for `data`, naming its first four bytes.
    static func notAnImage(startingWith data: some Collection<UInt8>) -> ImageCodecError {
        let hex = data.prefix(4).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }
        return .notAnImage(leadingBytes: hex.joined(separator: " "))
    }
}
