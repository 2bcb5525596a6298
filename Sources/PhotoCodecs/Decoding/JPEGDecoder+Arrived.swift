import CJPEG
public import Foundation

extension JPEGDecoder {
    /// What the bytes of a JPEG that have arrived so far show.
    public struct Arrived: Sendable {
        /// The upright image at the reduced scale asked for, rows not arrived yet mid-grey; nil while
        /// no scan or row is complete.
        public var image: PixelBuffer?
        /// The thumbnail a camera put in the Exif block (a whole small JPEG, not turned upright), if any.
        public var exifThumbnail: [UInt8]?
        /// The orientation the thumbnail and the image are turned by.
        public var orientation: ImageOrientation
        /// Complete scans shown: for a progressive JPEG each sharpens the whole image; a baseline one has one.
        public var scans: Int
        /// Whether the JPEG has several scans (progressive), each covering the whole image.
        public var progressive: Bool
        /// Rows of the decoded (not yet turned upright) image that hold arrived pixels; all of them for a progressive JPEG.
        public var rowsReady: Int
        /// The decoded image's height, before orientation.
        public var rowsTotal: Int
        /// The image's declared width x height: what a decode of it costs, whatever the scale.
        public var declaredPixels: Int
        /// Whether no later byte can show more: the decoder read the image's end (its EOI, or a
        /// baseline JPEG's last row), so anything after it is not part of the image.
        public var reachedEnd: Bool
    }

    /// Decodes the first bytes of a JPEG still arriving, at the smallest DCT scale at least
    /// `minimumHeight` high: a progressive JPEG as of its last complete scan (libjpeg-turbo's
    /// buffered-image mode), a baseline one down to the last row arrived. Nil while nothing can be
    /// shown (the header has not arrived, or CMYK, which previews do not handle); with no `image` while
    /// the first scan or row has not (an Exif thumbnail may be there already: it comes before them).
    /// Untrusted input: a corrupt prefix throws as a whole file would; where the bytes end, decoding stops.
    public static func decodeArrived(
        _ data: Data, minimumHeight: Int, limits: DecodeLimits = .init()
    ) throws(ImageCodecError) -> Arrived? {
        try withDecoder(data, limits: limits, arrived: true, incomplete: Arrived?.none) { decoder throws(ImageCodecError) in
            let size = try prepare(decoder, minimumHeight: minimumHeight, limits: limits)
            let cinfo = cpl_jpeg_decoder_cinfo(decoder)
            guard cinfo.pointee.out_color_space == JCS_RGB else { return nil }
            let progressive = cinfo.pointee.progressive_mode != 0
            let rowBytes = size.width * 3
            var ready: JDIMENSION = 0
            var scans: Int32 = 0
            var reachedEnd: Int32 = 0
            var status: Int32 = 0
            // Rows never reached stay mid-grey: neutral under the sepia tone, and plainly not the photo.
            var bytes = [UInt8](repeating: 128, count: rowBytes * size.height)
            bytes.withUnsafeMutableBufferPointer { buffer in
                var rows = (0..<size.height).map { Optional(buffer.baseAddress! + $0 * rowBytes) }
                status = rows.withUnsafeMutableBufferPointer { cpl_jpeg_decode_arrived(decoder, $0.baseAddress!, &ready, &scans, &reachedEnd) }
            }
            try check(status < 0 ? status : 0, decoder)
            let image = status == 0 ? PixelBuffer(width: size.width, height: size.height, channels: 3, bytes: bytes) : nil
            return Arrived(image: image?.oriented(size.orientation), exifThumbnail: exifThumbnail(cinfo),
                           orientation: size.orientation, scans: Int(scans), progressive: progressive,
                           rowsReady: Int(ready), rowsTotal: size.height,
                           declaredPixels: Int(cinfo.pointee.image_width) * Int(cinfo.pointee.image_height),
                           reachedEnd: reachedEnd != 0)
        }
    }

    /// The Exif thumbnail in the first APP1 marker that has one.
    static func exifThumbnail(_ cinfo: UnsafeMutablePointer<jpeg_decompress_struct>) -> [UInt8]? {
        var marker = cinfo.pointee.marker_list
        while let current = marker {
            if current.pointee.marker == UInt8(JPEG_APP0 + 1), let data = current.pointee.data,
               let thumbnail = EXIFReader.thumbnail(inAPP1: UnsafeBufferPointer(start: data, count: Int(current.pointee.data_length))) {
                return thumbnail
            }
            marker = current.pointee.next
        }
        return nil
    }
}
