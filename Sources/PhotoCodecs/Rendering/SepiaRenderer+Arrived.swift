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

extension SepiaRenderer {
    /// The row's thumbnail, in sepia, of what has arrived so far of a JPEG (`data`: its first bytes):
    /// decoded at reduced DCT scale, resampled to `height`, filtered, encoded. Nil while nothing can be
    /// shown yet, and for anything but a JPEG (a PNG's first rows would need a decoder of their own).
    /// Runs on the calling thread.
    ///
    /// A baseline JPEG's rows fill from the top; while they have not all arrived, the thumbnail a
    /// camera put in its Exif block (whole, at the start of the file) shows the whole photo instead.
    public func arrivedPreview(of data: Data, height: Int = 160) throws(ImageCodecError) -> ArrivedPreview? {
        guard ImageFormat(sniffing: data) == .jpeg,
              let arrived = try JPEGDecoder.decodeArrived(data, minimumHeight: max(1, height), limits: limits)
        else { return nil }
        let complete = arrived.image != nil && (arrived.progressive || arrived.rowsReady >= arrived.rowsTotal)
        if !complete, let bytes = arrived.exifThumbnail,
           let thumbnail = try? JPEGDecoder.decode(Data(bytes), limits: limits).oriented(arrived.orientation) {
            return ArrivedPreview(image: try sepia(thumbnail, height: height), scans: 0, progressive: arrived.progressive,
                                  rowsShown: 1, fromEXIFThumbnail: true)
        }
        guard let image = arrived.image else { return nil }
        return ArrivedPreview(
            image: try sepia(image, height: height), scans: arrived.scans, progressive: arrived.progressive,
            rowsShown: Double(arrived.rowsReady) / Double(max(1, arrived.rowsTotal)))
    }

    /// `image` resampled to `height`, in sepia, as JPEG.
    private func sepia(_ image: PixelBuffer, height: Int) throws(ImageCodecError) -> EncodedImage {
        var image = Resampler.scaled(image, toHeight: height)
        SepiaFilter(intensity: intensity).apply(to: &image)
        return try encode(image, as: .jpeg)
    }
}
