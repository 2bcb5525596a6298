/// A kind of file recognised by its magic bytes that this codec does not decode, so a reason can name it.
public enum ForeignFormat: String, Sendable, CaseIterable {
    case webp, gif, heic, avif, tiff, bmp, pdf, html, svg

    /// Recognises the kind from the leading bytes; nil when none matches.
    public init?(sniffing data: some Collection<UInt8>) {
        let head = Array(data.prefix(64))
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) {
            self = .webp
        } else if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) {
            self = .gif
        } else if let brand = Self.isoBrand(head) {
            self = brand
        } else if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            self = .tiff
        } else if head.count >= 14, head.starts(with: Array("BM".utf8)) {
            self = .bmp
        } else if head.starts(with: Array("%PDF-".utf8)) {
            self = .pdf
        } else if let markup = Self.markup(head) {
            self = markup
        } else {
            return nil
        }
    }

    /// The reason for people, e.g. "WebP images are not supported (JPEG and PNG are)".
    var reason: String {
        switch self {
        case .webp: "WebP images are not supported (JPEG and PNG are)"
        case .gif: "GIF images are not supported"
        case .heic: "HEIC images are not supported (JPEG and PNG are)"
        case .avif: "AVIF images are not supported (JPEG and PNG are)"
        case .tiff: "TIFF images are not supported (JPEG and PNG are)"
        case .bmp: "BMP images are not supported (JPEG and PNG are)"
        case .pdf: "This is a PDF document, not an image"
        case .html: "This is a web page, not an image"
        case .svg: "SVG drawings are not supported (JPEG and PNG are)"
        }
    }

    /// An ISO base media file (`....ftyp` + brand): HEIC/HEIF or AVIF.
    private static func isoBrand(_ head: [UInt8]) -> ForeignFormat? {
        guard head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) else { return nil }
        let brand = String(decoding: head[8..<12], as: UTF8.self)
        if ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].contains(brand) { return .heic }
        if ["avif", "avis"].contains(brand) { return .avif }
        return nil
    }

    /// Text markup after optional BOM and whitespace: `<!DOCTYPE html`, `<html`, `<svg`, `<?xml`.
    private static func markup(_ head: [UInt8]) -> ForeignFormat? {
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let text = String(decoding: bytes.drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }, as: UTF8.self).lowercased()
        if text.hasPrefix("<!doctype html") || text.hasPrefix("<html") || text.hasPrefix("<head") || text.hasPrefix("<body") {
            return .html
        }
        if text.hasPrefix("<svg") || (text.hasPrefix("<?xml") && text.contains("<svg")) { return .svg }
        return nil
    }
}
