public import Foundation
public import PhotoCodecs

/// The forms of a photo the pipeline keeps.
public enum ImageVariant: String, Sendable, Hashable, CaseIterable {
    /// The bytes as downloaded.
    case original
    /// The sepia thumbnail shown in the row.
    case thumbnail
    /// The same thumbnail without the sepia step: what the row shows while the sepia one is made
    /// (the tutorial's "unfiltered first"), so a row never loads the original.
    case preview
    /// The full-size sepia image, made only when asked for.
    case sepia
    /// The sepia thumbnail of the bytes arrived so far of a photo still downloading: held apart from
    /// the cache (`ArrivedPreviews`), never written, gone once the photo's work ends.
    case partial

    /// The variants kept in the cache and the results store: all but `partial`.
    public static let kept = allCases.filter { $0 != .partial }
}

/// Encoded image bytes with their format.
public struct CachedImage: Sendable, Equatable {
    /// The encoded bytes.
    public var data: Data
    /// The content type of `data`; nil for an original that is not a recognised image.
    public var format: ImageFormat?
    /// A hash of `data`, computed once: the image's ETag, however often it is served.
    public var contentHash: String

    /// Wraps `data`, sniffing its format when none is given.
    public init(data: Data, format: ImageFormat? = nil) {
        self.data = data
        self.format = format ?? ImageFormat(sniffing: data)
        self.contentHash = ContentHash.of(data)
    }
}
