public import Foundation
public import HTTPTransfer

/// Reads the list of photos: the tutorial's property list (name -> image URL) or its JSON equivalent,
/// from a file path or an http(s) URL.
public enum PhotoDataSource {
    /// Loads and parses the source at `location`; entries come back sorted by name.
    ///
    /// A URL is fetched with libcurl on `loop`; a path is read from disk off the cooperative pool.
    public static func load(
        from location: String,
        loop: TransferLoop = .shared,
        limits: TransferLimits = .init()
    ) async throws(DataSourceError) -> [PhotoEntry] {
        let bytes = try await read(location, loop: loop, limits: limits)
        return try parse(bytes, location: location)
    }

    /// Parses a property list or JSON document into entries sorted by name.
    public static func parse(_ data: Data, location: String) throws(DataSourceError) -> [PhotoEntry] {
        let entries: [PhotoEntry]
        switch firstSignificantByte(of: data) {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            entries = try parseJSON(data, location: location)
        case UInt8(ascii: "<"), UInt8(ascii: "b"):
            entries = try parsePropertyList(data, location: location)
        case nil:
            throw .unparseable(location: location, reason: "it is empty")
        default:
            throw .unparseable(location: location, reason: "it is neither a property list nor JSON")
        }
        return entries.sorted { ($0.name, $0.url) < ($1.name, $1.url) }
    }

    private static func read(
        _ location: String, loop: TransferLoop, limits: TransferLimits
    ) async throws(DataSourceError) -> Data {
        let lowered = location.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            do {
                return try await loop.fetch(location, limits: limits)
            } catch {
                throw .fetchFailed(url: location, error)
            }
        }
        if lowered.contains("://") {
            throw .unreadable(path: location, reason: "only file paths and http(s) URLs are supported")
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: location))
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? error.localizedDescription
            throw .unreadable(path: location, reason: reason)
        }
    }

    private static func firstSignificantByte(of data: Data) -> UInt8? {
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF]  // and a UTF-8 BOM
        return data.first { !whitespace.contains($0) }
    }

    private static func parsePropertyList(_ data: Data, location: String) throws(DataSourceError) -> [PhotoEntry] {
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw .unparseable(location: location, reason: "invalid property list (\(describe(error)))")
        }
        guard let dictionary = object as? [String: Any] else {
            throw .unparseable(location: location, reason: "the property list is not a dictionary of name -> URL")
        }
        return entries(from: dictionary)
    }

    private static func parseJSON(_ data: Data, location: String) throws(DataSourceError) -> [PhotoEntry] {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .unparseable(location: location, reason: "invalid JSON (\(describe(error)))")
        }
        if let dictionary = object as? [String: Any] {
            return entries(from: dictionary)
        }
        guard let array = object as? [Any] else {
            throw .unparseable(location: location, reason: "JSON must be an object of name -> URL or an array of {\"name\", \"url\"}")
        }
        var result: [PhotoEntry] = []
        for (position, element) in array.enumerated() {
            guard let item = element as? [String: Any], let name = item["name"] as? String else {
                throw .unparseable(location: location, reason: "array element \(position) has no string \"name\"")
            }
            result.append(entry(name: name, value: item["url"]))
        }
        return result
    }

    private static func entries(from dictionary: [String: Any]) -> [PhotoEntry] {
        dictionary.map { entry(name: $0.key, value: $0.value) }
    }

    private static func entry(name: String, value: Any?) -> PhotoEntry {
        guard let url = value as? String else {
            return PhotoEntry(name: name, unusableValue: "the URL is not a string")
        }
        return PhotoEntry(name: name, url: url)
    }

    private static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        return nsError.userInfo[NSDebugDescriptionErrorKey] as? String ?? nsError.localizedDescription
    }
}
