import CPNG
public import Foundation

/// Encodes RGB or RGBA pixels to PNG with libpng's simplified API.
public enum PNGEncoder {
    /// Encodes `image` as 8-bit RGB or RGBA, favouring speed over size (no filtering, zlib level 3).
    public static func encode(_ image: PixelBuffer) throws(ImageCodecError) -> Data {
        var png = png_image()
        png.version = png_uint_32(PNG_IMAGE_VERSION)
        png.width = png_uint_32(image.width)
        png.height = png_uint_32(image.height)
        png.format = image.hasAlpha ? PNG_FORMAT_RGB | PNG_FORMAT_FLAG_ALPHA : PNG_FORMAT_RGB
        png.flags = png_uint_32(PNG_IMAGE_FLAG_FAST)
        // Worst-case capacity, so one compression pass always fits.
        let capacity = Int(cpl_png_image_png_size_max(png))
        let output = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
        defer { output.deallocate() }
        var written = png_alloc_size_t(capacity)
        let status = image.bytes.withUnsafeBytes { pixels in
            png_image_write_to_memory(&png, output, &written, 0, pixels.baseAddress, 0, nil)
        }
        guard status != 0 else {
            throw .encodingFailed(format: .png, reason: png.messageText)
        }
        return Data(bytes: output, count: Int(written))
    }
}
