public import Foundation

/// An encoded image ready to serve.
public struct EncodedImage: Sendable {
    /// The encoded bytes.
    public var data: Data
    /// The format of `data`.
    public var format: ImageFormat
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Describes already encoded `data`.
    public init(data: Data, format: ImageFormat, width: Int, height: Int) {
        self.data = data
        self.format = format
        self.width = width
        self.height = height
    }
}

/// The whole decode -> sepia -> encode path for one photo: JPEG out, PNG when the source has alpha.
public struct SepiaRenderer: Sendable {
    /// Sepia amount, 0...1; see `SepiaFilter.intensity`.
    public var intensity: Double
    /// Limits applied to the untrusted input.
    public var limits: DecodeLimits
    /// Quality of JPEG output, 1...100.
    public var jpegQuality: Int

    /// A renderer with the given settings.
    public init(intensity: Double = 0.8, limits: DecodeLimits = .init(), jpegQuality: Int = 85) {
        self.intensity = intensity
        self.limits = limits
        self.jpegQuality = jpegQuality
    }

    /// Thumbnail of `height` px: decode at reduced DCT scale, resample, sepia on the small pixels only, encode
    /// (`format`, or by default JPEG, PNG when the source has alpha). Smaller sources are not upscaled.
    ///
    /// `unfiltered`, when given, receives the same thumbnail without the sepia step first (the
    /// tutorial's "unfiltered first, then sepia"), from the one decode, on the calling thread.
    ///
    /// `decodedAhead`, when given, is asked for the decoded image first (an `ArrivingJPEG`'s `finish`,
    /// made for `height` and these limits, behind its owner's lock); when it gives nil, `data` is decoded.
    public func thumbnail(
        of data: Data, height: Int = 160, format: ImageFormat? = nil, isCancelled: () -> Bool = { false },
        decodedAhead: (() -> PixelBuffer?)? = nil, unfiltered: ((EncodedImage) -> Void)? = nil
    ) throws(ImageCodecError) -> EncodedImage {
        try render(data, minimumHeight: max(1, height), format: format, isCancelled: isCancelled,
                   decodedAhead: decodedAhead, unfiltered: unfiltered) { image in
            Resampler.scaled(image, toHeight: height)
        }
    }

    /// Both row images from one reduced-scale decode, on the calling thread: `preview` is the upright
    /// thumbnail before the sepia step, `sepia` the same pixels filtered; same size, same format.
    public func thumbnails(
        of data: Data, height: Int = 160, format: ImageFormat? = nil, isCancelled: () -> Bool = { false }
    ) throws(ImageCodecError) -> (preview: EncodedImage, sepia: EncodedImage) {
        var preview: EncodedImage?
        let sepia = try thumbnail(of: data, height: height, format: format, isCancelled: isCancelled, unfiltered: { preview = $0 })
        // render always hands the unfiltered image over before it filters, so it is set here.
        guard let preview else { throw .cancelled }
        return (preview, sepia)
    }

    /// Full-size sepia image, encoded as `format` (by default JPEG, PNG when the source has alpha).
    public func fullSize(
        of data: Data, format: ImageFormat? = nil, isCancelled: () -> Bool = { false }
    ) throws(ImageCodecError) -> EncodedImage {
        try render(data, minimumHeight: nil, format: format, isCancelled: isCancelled, resize: { $0 })
    }

    /// Checks `isCancelled` before decoding, before filtering and before encoding: the points where
    /// giving up saves the most work.
    private func render(
        _ data: Data, minimumHeight: Int?, format: ImageFormat?, isCancelled: () -> Bool,
        decodedAhead: (() -> PixelBuffer?)? = nil, unfiltered: ((EncodedImage) -> Void)? = nil,
        resize: (PixelBuffer) -> PixelBuffer
    ) throws(ImageCodecError) -> EncodedImage {
        if isCancelled() { throw .cancelled }
        var image: PixelBuffer
        if let decoded = decodedAhead?() {
            image = decoded
        } else {
            image = try ImageDecoder.decode(data, minimumHeight: minimumHeight, limits: limits)
        }
        if isCancelled() { throw .cancelled }
        // Reassigning the one variable keeps the buffer uniquely referenced, so the filter does not copy it.
        image = resize(image)
        if let unfiltered {
            unfiltered(try encode(image, as: format))
            if isCancelled() { throw .cancelled }
        }
        SepiaFilter(intensity: intensity).apply(to: &image)
        if isCancelled() { throw .cancelled }
        return try encode(image, as: format)
    }

    /// Encodes as `format`, by default JPEG, PNG when the image has alpha.
    func encode(_ image: PixelBuffer, as format: ImageFormat?) throws(ImageCodecError) -> EncodedImage {
        if (format ?? (image.hasAlpha ? .png : .jpeg)) == .png {
            return EncodedImage(data: try PNGEncoder.encode(image), format: .png, width: image.width, height: image.height)
        }
        return EncodedImage(data: try JPEGEncoder.encode(image, quality: jpegQuality), format: .jpeg,
                            width: image.width, height: image.height)
    }
}
