public import Foundation

/// Decodes JPEG or PNG data, picking the decoder from the magic bytes rather than a name or MIME type.
public enum ImageDecoder {
    /// Decodes `data` to RGB (RGBA for a PNG with alpha); a JPEG decodes at the smallest DCT scale
    /// whose height is still at least `minimumHeight`.
    public static func decode(
        _ data: Data, minimumHeight: Int? = nil, limits: DecodeLimits = .init()
    ) throws(ImageCodecError) -> PixelBuffer {
        switch ImageFormat(sniffing: data) {
        case .jpeg: try JPEGDecoder.decode(data, minimumHeight: minimumHeight, limits: limits)
        case .png: try PNGDecoder.decode(data, limits: limits)
        case nil: throw ImageCodecError.notAnImage(startingWith: data)
        }
    }
}
