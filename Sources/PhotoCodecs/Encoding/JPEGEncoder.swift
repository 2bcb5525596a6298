import CJPEG
public import Foundation

/// Encodes RGB pixels to JPEG with libjpeg-turbo.
public enum JPEGEncoder {
    /// Encodes `image` (an alpha channel is dropped) at `quality` 1...100, 4:2:0, baseline or progressive.
    public static func encode(
        _ image: PixelBuffer, quality: Int = 85, progressive: Bool = false
    ) throws(ImageCodecError) -> Data {
        // JCS_EXT_RGBX makes libjpeg-turbo skip the alpha byte itself, with no RGB copy.
        let colorSpace = image.hasAlpha ? JCS_EXT_RGBX : JCS_RGB
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
        let messageSize = message.count
        let status = image.bytes.withUnsafeBufferPointer { pixels in
            cpl_jpeg_encode(pixels.baseAddress!, JDIMENSION(image.width), JDIMENSION(image.height),
                            Int32(image.channels), colorSpace, Int32(min(max(quality, 1), 100)),
                            progressive ? 1 : 0, &output, &size, &message, messageSize)
        }
        guard status == 0, let output else {
            throw .encodingFailed(format: .jpeg, reason: message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        defer { free(output) }
        // Copied out because libjpeg's buffer is sized for the worst case.
        return Data(bytes: output, count: Int(size))
    }
}
