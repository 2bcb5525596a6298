import Foundation
import PhotoPipeline
import NIOCore

/// The page's files (`Public/`), read once at start: each with its bytes, its gzip form, its
/// content type and ETag, and one version for the whole set, so the page can name them under
/// `/static/v/VERSION/` and let browsers keep them for a year.
///
/// Only regular files are served: a symlink (to anywhere) and anything hidden are left out, and a
/// path is looked up as given, never joined onto the disk, so no `..` can leave the folder.
struct StaticFiles: Sendable {
    struct File: Sendable {
        let data: Data
        let gzipped: Data?
        let contentType: String
        let tag: String
    }

    let files: [String: File]
    /// Changes whenever any file's content does.
    let version: String

    /// Reads `directory` (subfolders too). A missing folder gives an empty set (the page then has
    /// no styles, and the log says why).
    init(directory: String) {
        let root = URL(fileURLWithPath: directory).standardizedFileURL
        var files: [String: File] = [:]
        let keys: [URLResourceKey] = [.isRegularFileKey, .isSymbolicLinkKey]
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles])
        while let url = enumerator?.nextObject() as? URL {
            guard let values = try? url.resourceValues(forKeys: Set(keys)),
                  values.isSymbolicLink != true, values.isRegularFile == true,
                  let data = try? Data(contentsOf: url)
            else { continue }
            let name = String(url.standardizedFileURL.path.dropFirst(root.path.count + 1))
            let type = Self.contentType(of: name)
            let gzipped = Compression.isCompressible(contentType: type) ? Compression.gzip(data).map { Data($0.readableBytesView) } : nil
            files[name] = File(data: data, gzipped: gzipped, contentType: type, tag: "\"\(ContentHash.of(data))\"")
        }
        self.files = files
        let listing = files.keys.sorted().map { "\($0) \(files[$0]!.tag)" }.joined(separator: "\n")
        version = String(ContentHash.of(Data(listing.utf8)).prefix(12))
    }

    /// The file at `path` (components as in the URL, already percent-decoded), if served.
    func file(at components: [Substring]) -> File? {
        guard !components.isEmpty, components.allSatisfy({ Self.isPlainName($0) }) else { return nil }
        return files[components.joined(separator: "/")]
    }

    private static func isPlainName(_ component: Substring) -> Bool {
        !component.isEmpty && !component.hasPrefix(".") && !component.contains("\\") && !component.contains("\0")
            && !component.contains("/") && !component.contains(":")
    }

    static func contentType(of name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "ico": "image/x-icon"
        case "json": "application/json"
        case "html": "text/html; charset=utf-8"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
