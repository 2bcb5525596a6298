import CJPEG
public import Foundation

/// A JPEG decoded while its bytes arrive. Each `take` decodes only the bytes that came since the
/// last one (libjpeg suspends where they end and goes on from there), so the previews of a download
/// cost its bytes once, not the whole prefix again at each, and when the last byte comes only the end
/// of the image is left to decode (`finish`): the filter no longer waits for a whole decode then.
///
/// Decodes at the same reduced DCT scale as `JPEGDecoder.decode(_:minimumHeight:limits:)` and to
/// the same pixels (a progressive JPEG's scans go to libjpeg's coefficients in buffered-image mode;
/// its image is written from all of them at the end, as a one-shot decode writes it).
///
/// Not thread-safe: its owner keeps it behind a lock. Untrusted input: a corrupt or unsupported
/// JPEG (CMYK included, which previews do not show) ends this decode, and `finish` then gives nil so the
/// caller decodes the whole body afresh and reports why it fails in the usual words.
public final class ArrivingJPEG {
    /// The image is decoded at the smallest scale whose upright height is at least this.
    public let minimumHeight: Int
    /// The limits applied to the untrusted input.
    public let limits: DecodeLimits

    private var decoder: OpaquePointer?
    private var size: JPEGDecoder.OutputSize?
    private var pixels: UnsafeMutablePointer<UInt8>?
    private var rows: [JSAMPROW?] = []
    /// Bytes of the body handed to libjpeg so far.
    private var appended = 0
    /// Set when the decode failed, or cannot give what is asked of it (CMYK): nothing more is tried.
    private var givenUp = false
    private var exifThumbnail: [UInt8]?
    private var declaredPixels = 0
    private var progressive = false
    /// Several scans (progressive, or a rare multi-scan sequential one): taken into coefficients, written out on asking.
    private var multiScan = false
    private var rowsReady = 0
    private var scansShown = 0

    /// A decode at the smallest scale at least `minimumHeight` high, within `limits`.
    public init(minimumHeight: Int, limits: DecodeLimits = .init()) {
        (self.minimumHeight, self.limits) = (max(1, minimumHeight), limits)
    }

    deinit {
        release()
    }

    /// Decodes the bytes of `data` (the body so far: the bytes taken before, then more) that came since
    /// the last call. Returns what they show, as `JPEGDecoder.decodeArrived` would, with an `image` only
    /// when `image` is asked for (writing a progressive JPEG's image costs a pass over it); nil while
    /// the header has not all arrived, and after the decode has ended (failed, CMYK, or finished).
    public func take(_ data: Data, image wanted: Bool) throws(ImageCodecError) -> JPEGDecoder.Arrived? {
        guard !givenUp else { return nil }
        do throws(ImageCodecError) {
            guard try append(data), let decoder, let size else { return nil }
            var ready: JDIMENSION = 0
            var scans: Int32 = 0
            var reachedEnd: Int32 = 0
            let status = rows.withUnsafeMutableBufferPointer {
                cpl_jpeg_stream_consume(decoder, $0.baseAddress!, &ready, &scans, &reachedEnd)
            }
            try JPEGDecoder.check(status, decoder)
            if multiScan {
                if wanted {
                    let output = rows.withUnsafeMutableBufferPointer { cpl_jpeg_stream_output(decoder, $0.baseAddress!) }
                    try JPEGDecoder.check(output < 0 ? output : 0, decoder)
                    if output == 0 { (scansShown, rowsReady) = (Int(scans), size.height) }
                }
            } else {
                (rowsReady, scansShown) = (Int(ready), Int(scans))
            }
            let shown = wanted && rowsReady > 0
            return JPEGDecoder.Arrived(
                image: shown ? image(size) : nil, exifThumbnail: exifThumbnail, orientation: size.orientation,
                scans: scansShown, progressive: progressive, rowsReady: rowsReady, rowsTotal: size.height,
                declaredPixels: declaredPixels, reachedEnd: reachedEnd != 0)
        } catch {
            giveUp()
            throw error
        }
    }

    /// The whole image, upright, once every byte is in (`data`: the whole body, beginning with the
    /// bytes taken): only the bytes not taken yet are decoded now. Nil when this decode cannot give it
    /// (it failed or was given up, its header never arrived, `data` is not the body it took): the caller
    /// decodes `data` afresh then. The decoder's memory is released either way.
    public func finish(_ data: Data) -> PixelBuffer? {
        defer { giveUp() }
        guard !givenUp, (try? append(data)) == true, let decoder, let size else { return nil }
        let status = rows.withUnsafeMutableBufferPointer { cpl_jpeg_stream_finish(decoder, $0.baseAddress!) }
        guard status == 0 else { return nil }
        return image(size).oriented(size.orientation)
    }

    /// Hands libjpeg the bytes of `data` past those appended before, reading the header (and choosing
    /// the scale) once it is all there. False while it is not; throws when the bytes do not decode.
    private func append(_ data: Data) throws(ImageCodecError) -> Bool {
        // Fewer bytes than taken before: not the same body (a download started again). Let it go.
        guard data.count >= appended else {
            giveUp()
            return false
        }
        if decoder == nil {
            guard let made = cpl_jpeg_decoder_create(limits.maxMemoryBytes, Int32(clamping: limits.maxProgressiveScans)) else {
                throw .unsupported(format: .jpeg, reason: "out of memory creating the decoder")
            }
            decoder = made
        }
        guard let decoder else { return false }
        let added = data.count - appended
        if added > 0 {
            let status = data.withUnsafeBytes { raw in
                cpl_jpeg_stream_append(decoder, raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + appended, UInt(added))
            }
            guard status == 0 else { throw .unsupported(format: .jpeg, reason: "out of memory holding the bytes arrived") }
            appended = data.count
        }
        if size == nil {
            let status = cpl_jpeg_stream_read_header(decoder)
            try JPEGDecoder.check(status < 0 ? status : 0, decoder)
            guard status == 0 else { return false }
            try prepare(decoder)
        }
        return size != nil
    }

    /// After the header: the scale and output size as a one-shot decode chooses them, and the rows
    /// the image is written into (not arrived yet: mid-grey, neutral under the sepia tone).
    private func prepare(_ decoder: OpaquePointer) throws(ImageCodecError) {
        let size = try JPEGDecoder.prepare(decoder, minimumHeight: minimumHeight, limits: limits)
        let cinfo = cpl_jpeg_decoder_cinfo(decoder)
        guard cinfo.pointee.out_color_space == JCS_RGB else {
            giveUp()
            return
        }
        let rowBytes = size.width * 3
        let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes * size.height)
        pixels.initialize(repeating: 128, count: rowBytes * size.height)
        self.pixels = pixels
        rows = (0..<size.height).map { Optional(pixels + $0 * rowBytes) }
        exifThumbnail = JPEGDecoder.exifThumbnail(cinfo)
        declaredPixels = Int(cinfo.pointee.image_width) * Int(cinfo.pointee.image_height)
        progressive = cinfo.pointee.progressive_mode != 0
        multiScan = jpeg_has_multiple_scans(cinfo) != 0
        self.size = size
    }

    /// A copy of the rows as they are now, not yet turned upright.
    private func image(_ size: JPEGDecoder.OutputSize) -> PixelBuffer {
        let count = size.width * 3 * size.height
        let bytes = pixels.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
        return PixelBuffer(width: size.width, height: size.height, channels: 3, bytes: bytes)
    }

    /// Ends the decode: nothing more is taken, and libjpeg's memory (a progressive JPEG's
    /// coefficients) and the rows are released now rather than when the owner lets go.
    private func giveUp() {
        givenUp = true
        release()
    }

    private func release() {
        if let decoder { cpl_jpeg_decoder_destroy(decoder) }
        decoder = nil
        rows = []
        pixels?.deallocate()
        pixels = nil
        size = nil
    }
}
