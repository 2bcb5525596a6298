import CPNG
public import Foundation

/// Decodes PNG with libpng's simplified API, which converts every PNG flavour to 8-bit RGB(A).
public enum PNGDecoder {
    /// Decodes `data` to RGB, or RGBA when the PNG has alpha (an alpha channel or tRNS).
    public static func decode(_ data: Data, limits: DecodeLimits = .init()) throws(ImageCodecError) -> PixelBuffer {
        guard !data.isEmpty else { throw .corrupt(format: .png, reason: "empty input") }
        let result = data.withUnsafeBytes { raw in
            Result { () throws(ImageCodecError) in try decode(raw, limits: limits) }
        }
        return try result.get()
    }

    private static func decode(_ raw: UnsafeRawBufferPointer, limits: DecodeLimits) throws(ImageCodecError) -> PixelBuffer {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        // On failure the simplified API has already released its state.
        guard png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count) != 0 else {
            throw .corrupt(format: .png, reason: image.messageText)
        }
        let width = Int(image.width), height = Int(image.height)
        let channels = image.format & PNG_FORMAT_FLAG_ALPHA != 0 ? 4 : 3
        // libpng itself would accept up to 1,000,000 x 1,000,000; reject before allocating.
        do {
            try limits.checkPixels(width: width, height: height)
            try limits.checkBuffer(bytes: width * height * channels, format: .png)
        } catch {
            png_image_free(&image)
            throw error
        }
        image.format = channels == 4 ? PNG_FORMAT_RGB | PNG_FORMAT_FLAG_ALPHA : PNG_FORMAT_RGB
        // Without gAMA or sRGB, libpng would take 16-bit samples as linear light and brighten them;
        // editors write them sRGB-encoded, as browsers assume.
        image.flags |= png_uint_32(PNG_IMAGE_FLAG_16BIT_sRGB)
        var failure: String?
        let bytes = [UInt8](unsafeUninitializedCapacity: width * height * channels) { buffer, count in
            if png_image_finish_read(&image, nil, buffer.baseAddress!, 0, nil) != 0 {
                count = buffer.count
            } else {
                failure = image.messageText
            }
        }
        if let failure { throw .corrupt(format: .png, reason: failure) }
        return PixelBuffer(width: width, height: height, channels: channels, bytes: bytes)
    }
}

extension png_image {
    /// libpng's error or warning text from the fixed-size `message` field.
    var messageText: String {
        withUnsafeBytes(of: message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
