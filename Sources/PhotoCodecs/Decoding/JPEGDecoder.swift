import CJPEG
public import Foundation

/// Decodes JPEG with libjpeg-turbo, at a reduced DCT scale when only a small image is needed.
public enum JPEGDecoder {
    /// The size a decode produces and the DCT scale chosen for it.
    public struct OutputSize: Sendable, Equatable {
        /// Decoded width in pixels, before `orientation` is applied.
        public var width: Int
        /// Decoded height in pixels, before `orientation` is applied.
        public var height: Int
        /// The scale is `scaleNumerator / 8`: 8 is full size, 1 is the smallest (1/8).
        public var scaleNumerator: Int
        /// The Exif orientation `decode` applies after decoding (`.up` when there is none).
        public var orientation: ImageOrientation = .up
    }

    /// libjpeg-turbo scales by n/8; above 8/8 it would upscale, which a thumbnail never wants.
    private static let scaleDenominator: UInt32 = 8

    /// Decodes `data` to upright RGB: grayscale is expanded, Adobe CMYK/YCCK converted, and the Exif
    /// orientation applied after the (reduced-scale) decode, where turning the pixels is cheap.
    /// With `minimumHeight`, decodes at the smallest scale whose upright height is still at least that.
    public static func decode(
        _ data: Data, minimumHeight: Int? = nil, limits: DecodeLimits = .init()
    ) throws(ImageCodecError) -> PixelBuffer {
        try withDecoder(data, limits: limits) { decoder throws(ImageCodecError) in
            let size = try prepare(decoder, minimumHeight: minimumHeight, limits: limits)
            return try readPixels(decoder, size: size).oriented(size.orientation)
        }
    }

    /// Reads only the header and reports the size `decode` would produce for the same arguments.
    public static func outputSize(
        of data: Data, minimumHeight: Int? = nil, limits: DecodeLimits = .init()
    ) throws(ImageCodecError) -> OutputSize {
        try withDecoder(data, limits: limits) { decoder throws(ImageCodecError) in
            try prepare(decoder, minimumHeight: minimumHeight, limits: limits)
        }
    }

    /// Runs `body` on a decoder that has read the header of `data`; `data` stays pinned throughout
    /// because libjpeg's source reads it in place. `arrived`: `data` is what has arrived of a JPEG
    /// still downloading, read up to where it ends; `incomplete` is returned while its header is not all there.
    static func withDecoder<T>(
        _ data: Data, limits: DecodeLimits, arrived: Bool = false, incomplete: T? = nil,
        _ body: (OpaquePointer) throws(ImageCodecError) -> T
    ) throws(ImageCodecError) -> T {
        guard !data.isEmpty else { throw .corrupt(format: .jpeg, reason: "empty input") }
        guard let decoder = cpl_jpeg_decoder_create(limits.maxMemoryBytes, Int32(clamping: limits.maxProgressiveScans)) else {
            throw .unsupported(format: .jpeg, reason: "out of memory creating the decoder")
        }
        defer { cpl_jpeg_decoder_destroy(decoder) }
        let result = data.withUnsafeBytes { raw in
            Result { () throws(ImageCodecError) -> T in
                let bytes = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                guard arrived else {
                    try check(cpl_jpeg_read_header(decoder, bytes, UInt(raw.count)), decoder)
                    return try body(decoder)
                }
                let status = cpl_jpeg_read_header_arrived(decoder, bytes, UInt(raw.count))
                try check(status < 0 ? status : 0, decoder)
                if status == 0 { return try body(decoder) }
                guard let incomplete else { throw .corrupt(format: .jpeg, reason: "the header has not all arrived") }
                return incomplete
            }
        }
        return try result.get()
    }

    /// Checks the declared size, then sets the output colour space and DCT scale.
    static func prepare(
        _ decoder: OpaquePointer, minimumHeight: Int?, limits: DecodeLimits
    ) throws(ImageCodecError) -> OutputSize {
        let cinfo = cpl_jpeg_decoder_cinfo(decoder)
        try limits.checkPixels(width: Int(cinfo.pointee.image_width), height: Int(cinfo.pointee.image_height))
        switch cinfo.pointee.jpeg_color_space {
        case JCS_CMYK, JCS_YCCK:
            // libjpeg-turbo does not convert CMYK to RGB; it hands back CMYK and readPixels converts.
            cinfo.pointee.out_color_space = JCS_CMYK
        default:
            cinfo.pointee.out_color_space = JCS_RGB
        }
        let orientation = exifOrientation(cinfo) ?? .up
        // Smallest first; the last candidate, 8/8, is full size whatever the minimum.
        var numerator = scaleDenominator
        for candidate in minimumHeight == nil ? scaleDenominator...scaleDenominator : 1...scaleDenominator {
            try setScale(candidate, decoder)
            numerator = candidate
            let uprightHeight = orientation.swapsAxes ? cinfo.pointee.output_width : cinfo.pointee.output_height
            if Int(uprightHeight) >= minimumHeight ?? 0 { break }
        }
        let size = OutputSize(width: Int(cinfo.pointee.output_width), height: Int(cinfo.pointee.output_height),
                              scaleNumerator: Int(numerator), orientation: orientation)
        try limits.checkBuffer(bytes: size.width * size.height * Int(cinfo.pointee.output_components), format: .jpeg)
        return size
    }

    /// The orientation in the first APP1 marker that is an Exif block; nil when there is none or it is malformed.
    private static func exifOrientation(_ cinfo: UnsafeMutablePointer<jpeg_decompress_struct>) -> ImageOrientation? {
        var marker = cinfo.pointee.marker_list
        while let current = marker {
            if current.pointee.marker == UInt8(JPEG_APP0 + 1), let data = current.pointee.data {
                let payload = UnsafeBufferPointer(start: data, count: Int(current.pointee.data_length))
                if let orientation = EXIFReader.orientation(inAPP1: payload) { return orientation }
            }
            marker = current.pointee.next
        }
        return nil
    }

    private static func setScale(_ numerator: UInt32, _ decoder: OpaquePointer) throws(ImageCodecError) {
        let cinfo = cpl_jpeg_decoder_cinfo(decoder)
        cinfo.pointee.scale_num = numerator
        cinfo.pointee.scale_denom = scaleDenominator
        try check(cpl_jpeg_calc_output_dimensions(decoder), decoder)
    }

    private static func readPixels(_ decoder: OpaquePointer, size: OutputSize) throws(ImageCodecError) -> PixelBuffer {
        let cinfo = cpl_jpeg_decoder_cinfo(decoder)
        try check(cpl_jpeg_start_decompress(decoder), decoder)
        let components = Int(cinfo.pointee.output_components)
        let rowBytes = size.width * components
        var failure: ImageCodecError?
        let bytes = [UInt8](unsafeUninitializedCapacity: rowBytes * size.height) { buffer, count in
            var rows = (0..<size.height).map { Optional(buffer.baseAddress! + $0 * rowBytes) }
            do throws(ImageCodecError) {
                while cinfo.pointee.output_scanline < cinfo.pointee.output_height {
                    let line = Int(cinfo.pointee.output_scanline)
                    var read: JDIMENSION = 0
                    let status = rows.withUnsafeMutableBufferPointer {
                        cpl_jpeg_read_scanlines(decoder, $0.baseAddress! + line, JDIMENSION(size.height - line), &read)
                    }
                    try check(status, decoder)
                    // The memory source never suspends, so no progress means a libjpeg bug; do not spin.
                    if read == 0 { throw .corrupt(format: .jpeg, reason: "decoder stopped at line \(line)") }
                }
                try check(cpl_jpeg_finish_decompress(decoder), decoder)
                count = buffer.count
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        if components == 4 {
            return cmykToRGB(bytes, size: size, inverted: cinfo.pointee.saw_Adobe_marker != 0)
        }
        return PixelBuffer(width: size.width, height: size.height, channels: 3, bytes: bytes)
    }

    /// Naive CMYK to RGB (no colour profile): each channel is the light its ink lets through times
    /// the light black lets through. Photoshop writes Adobe-marked CMYK inverted, i.e. already as light.
    static func cmykToRGB(_ cmyk: [UInt8], size: OutputSize, inverted: Bool) -> PixelBuffer {
        let pixels = size.width * size.height
        let toLight: UInt32 = inverted ? 0 : 255  // XOR with 255 is 255 - ink
        let rgb = [UInt8](unsafeUninitializedCapacity: pixels * 3) { out, count in
            cmyk.withUnsafeBufferPointer { src in
                for i in 0..<pixels {
                    let black = UInt32(src[i * 4 + 3]) ^ toLight
                    for c in 0..<3 {
                        let light = UInt32(src[i * 4 + c]) ^ toLight
                        out[i * 3 + c] = UInt8((light * black + 127) / 255)
                    }
                }
            }
            count = pixels * 3
        }
        return PixelBuffer(width: size.width, height: size.height, channels: 3, bytes: rgb)
    }

    /// Turns a failed shim call into the matching error.
    static func check(_ status: Int32, _ decoder: OpaquePointer) throws(ImageCodecError) {
        guard status != 0 else { return }
        let reason = String(cString: cpl_jpeg_decoder_message(decoder))
        switch cpl_jpeg_decoder_failure(decoder) {
        case .CPL_JPEG_FAILURE_UNSUPPORTED, .CPL_JPEG_FAILURE_LIMIT:
            throw .unsupported(format: .jpeg, reason: reason)
        case .CPL_JPEG_FAILURE_CORRUPT, .CPL_JPEG_FAILURE_NONE:
            throw .corrupt(format: .jpeg, reason: reason)
        }
    }
}
