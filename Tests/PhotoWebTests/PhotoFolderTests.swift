import Foundation
import PhotoCodecs
@testable import PhotoWeb
import Testing
import HTTPTypes
import PhotoServer

@Suite("--photos-dir: a folder of the user's own photos", .serialized)
struct PhotoFolderTests {
    @Test func filesThatAreNotPhotosAreSkippedWithAReasonInTheListStatus() async throws {
        // Given a folder with a photo, a WebP named .jpg, a web page and a text file
        let folder = NSTemporaryDirectory() + "classic-photos-folder-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let photo = try JPEGEncoder.encode(SamplePhoto.make(seed: 1, width: 64, height: 48), quality: 80)
        try photo.write(to: URL(fileURLWithPath: folder + "/harbour.jpg"))
        try Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8).write(to: URL(fileURLWithPath: folder + "/pier.jpg"))
        try Data("<!DOCTYPE html><html></html>".utf8).write(to: URL(fileURLWithPath: folder + "/saved-page.png"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))

        // When the server serves it
        try await WebHarness.with(configure: { $0.photosDirectory = folder }) { harness in
            // Then the list has the one photo, and says which files it left out and why
            let list = try await harness.request(.GET, "/api/photos")
            #expect(list.json["count"] as? Int == 1)
            let viewer = try await harness.newViewer()
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            let source = try #require(try await stream.next { $0.name == "source" })
            let skipped = try #require(source.json["skipped"] as? [[String: String]])
            #expect(skipped == [
                ["file": "notes.txt", "reason": "Not a .jpg, .jpeg or .png file"],
                ["file": "pier.jpg", "reason": "WebP images are not supported (JPEG and PNG are)"],
                ["file": "saved-page.png", "reason": "This is a web page, not an image"],
            ])
        }
    }
}
