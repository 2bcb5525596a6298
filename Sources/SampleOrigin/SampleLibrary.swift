import Foundation
import PhotoCodecs

/// The sample photos: generated deterministically (each when first asked for, the rest in the
/// background) and kept on disk, so a machine with no internet still has a long list of
/// photo-sized images to scroll through.
struct SampleLibrary: Sendable {
    /// One listed photo: its display name, and the file it is served from (nil for the deliberately
    /// mis-named entries, whose URL leads nowhere, as in the tutorial).
    struct Entry: Sendable {
        var name: String
        var file: String
        var exists: Bool
    }

    static let version = "v2"
    let directory: URL
    let entries: [Entry]
    /// The listed files that exist, by name: their photo numbers (rows of a 10,000-photo list are looked up per request).
    private let numbers: [String: Int]

    /// Whether the files are made here (false for a folder of the user's own photos).
    let generated: Bool
    /// Files of the user's folder that are not listed, each with why.
    let skipped: [SkippedFile]

    /// The generated sample photos, kept under `configuration.directory`.
    init(configuration: SampleOriginConfiguration) {
        directory = URL(fileURLWithPath: configuration.directory).appendingPathComponent("sample-photos-\(Self.version)")
        entries = (0..<configuration.photoCount).map(Self.entry)
        numbers = Self.numbers(entries)
        generated = true
        skipped = []
    }

    /// The JPEG and PNG files of a folder of the user's own photos, named after their files.
    init(folder: String) throws {
        directory = URL(fileURLWithPath: folder)
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw SampleOriginError.unreadableFolder(folder, (error as NSError).localizedFailureReason ?? error.localizedDescription)
        }
        var listed: [String] = []
        var skipped: [SkippedFile] = []
        for file in files.sorted() where !file.hasPrefix(".") {
            let path = directory.appendingPathComponent(file).path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            // The first bytes tell a WebP or a web page saved as .jpg from a photo (decoding is left to the pipeline).
            if let foreign = Self.leadingBytes(of: path).flatMap({ ForeignFormat(sniffing: $0) }) {
                skipped.append(SkippedFile(file: file, reason: ImageCodecError.unsupportedFormat(foreign).description))
            } else if ["jpg", "jpeg", "png"].contains((file as NSString).pathExtension.lowercased()) {
                listed.append(file)
            } else {
                skipped.append(SkippedFile(file: file, reason: "Not a .jpg, .jpeg or .png file"))
            }
        }
        entries = listed.map { Entry(name: ($0 as NSString).deletingPathExtension, file: $0, exists: true) }
        numbers = Self.numbers(entries)
        self.skipped = skipped
        guard !entries.isEmpty else {
            throw SampleOriginError.unreadableFolder(folder, "it has no .jpg, .jpeg or .png files")
        }
        generated = false
    }

    /// Photo `number`: mostly 1600x1067 JPEG (a third progressive, a third with an Exif thumbnail:
    /// see `render`); every seventh a smaller PNG (every fourteenth with alpha); every forty-third mis-named.
    static func entry(_ number: Int) -> Entry {
        let name = "\(adjectives[number % adjectives.count]) \(places[(number / adjectives.count + number) % places.count]) \(String(format: "%03d", number))"
        let isPNG = number % 7 == 3
        let file = String(format: "photo-%03d.%@", number, isPNG ? "png" : "jpg")
        if number % 43 == 20 {
            // Like the tutorial's misspelt entries: the list names a file the server does not have.
            return Entry(name: name, file: file.replacingOccurrences(of: "photo-", with: "phtoo-"), exists: false)
        }
        return Entry(name: name, file: file, exists: true)
    }

    /// The maker of the generated photos (nil for a folder of the user's own photos): each is made
    /// when first asked for, the rest in the background. `progress(made, total)` follows the background.
    func maker(progress: (@Sendable (_ made: Int, _ total: Int) -> Void)? = nil) throws -> SampleMaker? {
        guard generated else { return nil }
        return try SampleMaker(directory: directory, files: Dictionary(uniqueKeysWithValues: numbers.map { ($1, $0) }), progress: progress)
    }

    private static func numbers(_ entries: [Entry]) -> [String: Int] {
        Dictionary(entries.enumerated().filter { $0.element.exists }.map { ($0.element.file, $0.offset) }) { first, _ in first }
    }

    /// The first bytes of the file at `path`, enough to tell its kind; nil when it cannot be read.
    private static func leadingBytes(of path: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 64)).map { Array($0) }
    }

    /// The number of the photo served as `file`, or nil when there is no such photo.
    func number(of file: String) -> Int? {
        numbers[file]
    }

    /// The bytes of a served file, or nil when there is no such photo (or it cannot be read).
    func bytes(of file: String) -> Data? {
        guard numbers[file] != nil else { return nil }
        return try? Data(contentsOf: directory.appendingPathComponent(file), options: .mappedIfSafe)
    }

    /// The tutorial's data source: an XML property list of name -> image URL.
    func propertyList(baseURL: String) throws -> Data {
        let dictionary = Dictionary(entries.map { ($0.name, "\(baseURL)/images/\(Self.percentEncoded($0.file))") }) { first, _ in first }
        return try PropertyListSerialization.data(fromPropertyList: dictionary, format: .xml, options: 0)
    }

    private static func percentEncoded(_ file: String) -> String {
        file.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? file
    }

    /// Photo `number`'s bytes, made from its seed (the same bytes on every machine and run).
    static func render(number: Int, file: String) throws -> Data {
        if file.hasSuffix(".png") {
            return try PNGEncoder.encode(SamplePhoto.make(seed: number, width: 800, height: 533, alpha: number % 14 == 3))
        }
        let photo = SamplePhoto.make(seed: number, width: 1600, height: 1067)
        switch number % 3 {
        case 0:
            // As the web's image optimisers write them: each scan sharpens the whole photo.
            return try JPEGEncoder.encode(photo, quality: 85, progressive: true)
        case 1:
            // As cameras write them: baseline, with a 160x107 thumbnail at the start of the Exif block.
            let thumbnail = try JPEGEncoder.encode(Resampler.scaled(photo, toHeight: 107), quality: 75)
            return SamplePhoto.withEXIFThumbnail(try JPEGEncoder.encode(photo, quality: 85), thumbnail: thumbnail)
        default:
            return try JPEGEncoder.encode(photo, quality: 85)
        }
    }

    private static let adjectives = [
        "Amber", "Brass", "Cedar", "Dusky", "Early", "Faded", "Golden", "Hazy", "Ivory", "Jade",
        "Keen", "Late", "Misty", "Northern", "Old", "Pale", "Quiet", "Russet", "Silver", "Tawny",
    ]
    private static let places = [
        "Harbour", "Bridge", "Lighthouse", "Market", "Orchard", "Station", "Abbey", "Canal", "Meadow", "Pier",
        "Quarry", "Tower", "Viaduct", "Windmill", "Cathedral", "Boulevard", "Cove", "Fountain", "Garden", "Hillside",
        "Lane", "Mill", "Promenade", "Square", "Terrace", "Valley", "Wharf", "Arcade", "Bay", "Cliffs",
    ]
}

/// A file of the user's photo folder that is not listed, and why (for the log and the page).
public struct SkippedFile: Sendable, Equatable, Encodable {
    /// The file's name in the folder.
    public var file: String
    /// Why it is not listed, in words a person understands.
    public var reason: String
}
