import Foundation
import HTTPTransfer
@testable import PhotoPipeline
import TestOrigin
import Testing

@Suite("Data source")
struct DataSourceTests {
    let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
            <key>Tower Bridge</key><string>http://127.0.0.1:1/tower.jpg</string>
            <key>Big Ben</key><string>https://127.0.0.1:1/bigben.jpg</string>
            <key>Misnamed</key><string>ftp://127.0.0.1/nope.jpg</string>
        </dict>
        </plist>
        """

    @Test func propertyListEntriesComeSortedByName() throws {
        // When the tutorial's plist format is parsed
        let entries = try PhotoDataSource.parse(Data(plist.utf8), location: "photos.plist")
        // Then records are in name order, and the invalid URL is kept as a failed entry, not dropped
        #expect(entries.map(\.name) == ["Big Ben", "Misnamed", "Tower Bridge"])
        #expect(entries[0].problem == nil)
        #expect(entries[1].problem == "not a valid http(s) URL: ftp://127.0.0.1/nope.jpg")
    }

    @Test func jsonObjectAndArrayFormsAreEquivalent() throws {
        let object = #"{"b": "http://127.0.0.1/b.jpg", "a": "http://127.0.0.1/a.jpg"}"#
        let array = #"[{"name": "b", "url": "http://127.0.0.1/b.jpg"}, {"name": "a", "url": "http://127.0.0.1/a.jpg"}]"#
        let fromObject = try PhotoDataSource.parse(Data(object.utf8), location: "o.json")
        let fromArray = try PhotoDataSource.parse(Data(array.utf8), location: "a.json")
        #expect(fromObject == fromArray)
        #expect(fromObject.map(\.name) == ["a", "b"])
    }

    @Test func aValueThatIsNotAStringBecomesAFailedRow() throws {
        let entries = try PhotoDataSource.parse(Data(#"{"n": 42, "ok": "http://127.0.0.1/x.jpg"}"#.utf8), location: "x.json")
        #expect(entries.first { $0.name == "n" }?.problem == "the URL is not a string")
        let pipeline = PhotoPipeline(entries: entries, loop: TransferLoop(name: "unused"))
        #expect(pipeline.record(0).state == .failed(reason: "the URL is not a string"))
        #expect(pipeline.record(1).state == .new)
    }

    @Test(arguments: [
        ("", "is empty"),
        ("hello", "neither a property list nor JSON"),
        ("{\"a\": ", "invalid JSON"),
        ("<plist><array><string>x</string></array></plist>", "not a dictionary"),
        ("[{\"url\": \"http://x/y\"}]", "has no string \"name\""),
    ])
    func malformedSourcesGiveAReadableError(text: String, expected: String) {
        #expect {
            try PhotoDataSource.parse(Data(text.utf8), location: "bad")
        } throws: { error in
            guard case .unparseable(location: "bad", let reason) = error as? DataSourceError else { return false }
            return reason.contains(expected) && (error as! DataSourceError).description.hasPrefix("data source bad does not parse")
        }
    }

    @Test func readsAFileAndReportsAMissingOne() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cpl-\(UUID()).plist").path
        try Data(plist.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let entries = try await PhotoDataSource.load(from: path, loop: TransferLoop(name: "unused"))
        #expect(entries.count == 3)
        await #expect(throws: DataSourceError.self) {
            try await PhotoDataSource.load(from: path + ".missing", loop: TransferLoop(name: "unused"))
        }
    }

    @Test func fetchesOverHTTPAndReportsAFailedFetch() async throws {
        let origin = try TestOrigin(routes: ["/photos.plist": .body(contentType: "application/xml", bytes: Array(plist.utf8))])
        let loop = TransferLoop(name: "data-source-test")
        // Awaited off Swift concurrency's threads: a blocking `shutdown()` here would hold one of them.
        defer { origin.stop(); Task.detached { await loop.shutdownAndWait() } }

        let limits = TransferLimits(allowedSources: AllowedSources(entries: [try #require(.init(origin: origin.url("/")))]))

        let entries = try await PhotoDataSource.load(from: origin.url("/photos.plist"), loop: loop, limits: limits)
        #expect(entries.map(\.name) == ["Big Ben", "Misnamed", "Tower Bridge"])

        await #expect(throws: DataSourceError.fetchFailed(url: origin.url("/missing.plist"), .httpStatus(404))) {
            try await PhotoDataSource.load(from: origin.url("/missing.plist"), loop: loop, limits: limits)
        }
    }

    @Test func aDataSourceOnAnAddressNobodyAllowedIsRefused() async throws {
        let origin = try TestOrigin(routes: ["/photos.plist": .body(contentType: "application/xml", bytes: Array(plist.utf8))])
        let loop = TransferLoop(name: "data-source-refused")
        defer { loop.shutdown(); origin.stop() }

        let error = await #expect(throws: DataSourceError.self) {
            try await PhotoDataSource.load(from: origin.url("/photos.plist"), loop: loop)
        }

        guard case .fetchFailed(_, .addressRefused(_, let reason)) = error else {
            Issue.record("expected a refused address, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("loopback"))
        #expect(origin.requestCount("/photos.plist") == 0)
    }
}
