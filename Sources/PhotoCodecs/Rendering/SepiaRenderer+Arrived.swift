public import Foundation

/// A sepia preview of a photo still arriving, and what of it the preview shows.
public struct ArrivedPreview: Sendable {
    /// The sepia thumbnail of what has arrived (JPEG).
    public var image: EncodedImage
    /// Complete scans shown (1 for a baseline JPEG, which fills from the top instead).
    public var scans: Int
    /// Whether the JPEG is progressive: each scan sharpens the whole image.
    public var progressive: Bool
    /// The share of the decoded rows that hold arrived pixels, 0...1 (1 for a progressive JPEG and
    /// for the Exif thumbnail).
    public var rowsShown: Double
    /// Whether it is the thumbnail a camera put in the Exif block.
    public var fromEXIFThumbnail = false
}

/// One preview decode of the bytes arrived: the preview it gave, and what bounds the next.
public struct ArrivedDecode: Sendable {
    /// The preview; nil while nothing can be shown yet.
    public var preview: ArrivedPreview?
    /// The image's declared width x height (0 before its header has arrived): what the decode cost.
    public var declaredPixels = 0
    /// Whether no later byte can show more: the image's end was read, or its bytes do not decode.
    public var isFinal = false

    /// A decode that gave `preview`, of an image declaring `declaredPixels`; `isFinal` as above.
    public init(preview: ArrivedPreview? = nil, declaredPixels: Int = 0, isFinal: Bool = false) {
        (self.preview, self.declaredPixels, self.isFinal) = (preview, declaredPixels, isFinal)
    }
}

extension SepiaRenderer {
    /// Most pixels an Exif thumbnail may declare: a camera's is about 160 x 120, and one that declares
    /// a photo's size would cost a photo's decode at every preview.
    public static let exifThumbnailMaxPixels = 1_000_000

    /// `arrivedDecode(of:height:)`'s preview.
    public func arrivedPreview(of data: Data, height: Int = 160) throws(ImageCodecError) -> ArrivedPreview? {
        try arrivedDecode(of: data, height: height).preview
    }

    /// The row's thumbnail, in sepia, of what has arrived so far of a JPEG (`data`: its first bytes):
    /// decoded at reduced DCT scale, resampled to `height`, filtered, encoded. Nil while nothing can be
    /// shown yet, and for anything but a JPEG (a PNG's first rows would need a decoder of their own).
    /// Runs on the calling thread.
    ///
    /// A baseline JPEG's rows fill from the top; while they have not all arrived, the thumbnail a
    /// camera put in its Exif block (whole, at the start of the file) shows the whole photo instead.
    ///
    /// Bounded: the image at reduced scale, the Exif thumbnail too and only up to
    /// `exifThumbnailMaxPixels`; the decode says what it cost and whether later bytes could show more.
    ///
    /// With `arriving` (made for `height` and these limits), the bytes are decoded by it: only those
    /// that came since its last take, a preview made only when `preview` says so, and the decode's cost
    /// counted as none (it follows the new bytes, not the image). Without, `data` is decoded afresh.
    public func arrivedDecode(
        of data: Data, height: Int = 160, continuing arriving: ArrivingJPEG? = nil, preview: Bool = true
    ) throws(ImageCodecError) -> ArrivedDecode {
        // Bytes that do not start as a JPEG never will: no later preview of them is worth trying.
        guard ImageFormat(sniffing: data) == .jpeg else { return ArrivedDecode(isFinal: data.count >= 3) }
        let taken = arriving.flatMap { continues($0, height: height) ? $0 : nil }
        let decoded = if let taken {
            try taken.take(data, image: preview)
        } else {
            try JPEGDecoder.decodeArrived(data, minimumHeight: max(1, height), limits: limits)
        }
        guard var arrived = decoded else { return ArrivedDecode() }
        if taken != nil { arrived.declaredPixels = 0 }
        var decode = ArrivedDecode(declaredPixels: arrived.declaredPixels, isFinal: arrived.reachedEnd)
        guard preview else { return decode }
        let complete = arrived.image != nil && (arrived.progressive || arrived.rowsReady >= arrived.rowsTotal)
        if !complete, let thumbnail = exifThumbnail(arrived, height: height) {
            decode.preview = ArrivedPreview(image: try sepia(thumbnail, height: height), scans: 0, progressive: arrived.progressive,
                                            rowsShown: 1, fromEXIFThumbnail: true)
            return decode
        }
        guard let image = arrived.image else { return decode }
        decode.preview = ArrivedPreview(
            image: try sepia(image, height: height), scans: arrived.scans, progressive: arrived.progressive,
            rowsShown: Double(arrived.rowsReady) / Double(max(1, arrived.rowsTotal)))
        return decode
    }

    /// The Exif thumbnail of `arrived`, upright, decoded at the smallest scale still `height` high;
    /// nil when there is none, or it does not decode, or it declares more than `exifThumbnailMaxPixels`.
    private func exifThumbnail(_ arrived: JPEGDecoder.Arrived, height: Int) -> PixelBuffer? {
        guard let bytes = arrived.exifThumbnail else { return nil }
        var thumbnailLimits = limits
        thumbnailLimits.maxPixels = min(limits.maxPixels, Self.exifThumbnailMaxPixels)
        return try? JPEGDecoder.decode(Data(bytes), minimumHeight: max(1, height), limits: thumbnailLimits)
            .oriented(arrived.orientation)
    }

    /// Whether `arriving` decodes for thumbnails `height` high within these limits.
    public func continues(_ arriving: ArrivingJPEG, height: Int) -> Bool {
        arriving.minimumHeight == max(1, height) && arriving.limits == limits
    }

    /// `image` resampled to `height`, in sepia, as JPEG.
    private func sepia(_ image: PixelBuffer, height: Int) throws(ImageCodecError) -> EncodedImage {
        var image = Resampler.scaled(image, toHeight: height)
        SepiaFilter(intensity: intensity).apply(to: &image)
        return try encode(image, as: .jpeg)
    }
}
