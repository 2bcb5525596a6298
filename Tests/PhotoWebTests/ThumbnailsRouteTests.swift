import Foundation
import HTTPTypes
import PhotoCodecs
import PhotoPipeline
import PhotoServer
@testable import PhotoWeb
import TestOrigin
import Testing

/// `GET /photos/thumbnails?first=A&last=B` (issue 38): the final thumbnails of a stop's rows on one
/// answer, each the moment it is made (with `previews=1`, the previews of its bytes arrived first); a
/// row the stop's report has not started yet is waited for.
@Suite("A stop's thumbnails on one answer", .timeLimit(.minutes(2)))
struct ThumbnailsRouteTests {
    @Test func eachReadyRowIsAFrameOfItsThumbnailAndARowNeverStartedHasNone() async throws {
        try await WebHarness.with { harness in
            let viewer = try await harness.newViewer()
            let stream = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            try await harness.report(viewer, scrolling: false, rows: 0...1)
            // (the two may be filtered in either order)
            var filtered: Set<Int> = []
            while filtered.count < 2 {
                let event = try await stream.next { $0.name == "photo" && $0.json["state"] as? String == "filtered" }
                if let index = event.json["index"] as? Int { filtered.insert(index) }
            }

            // Rows 0 and 1 are filtered, row 2 was never wanted: a frame each for 0 and 1, the bytes
            // `GET /photos/N/thumbnail` answers, none for 2, and the answer ends (row 2 is waited for
            // to start only for a moment)
            let answer = try await harness.request(.GET, "/photos/thumbnails?first=0&last=2")
            #expect(answer.status == 200)
            #expect(answer.headers[.contentType] == "application/octet-stream")
            let frames = try Self.frames(of: answer.body)
            #expect(frames.map(\.index).sorted() == [0, 1])
            for frame in frames {
                let alone = try await harness.request(.GET, "/photos/\(frame.index)/thumbnail")
                #expect(frame.type == alone.headers[.contentType] && frame.bytes == alone.body)
            }
            #expect(harness.pipeline.stats.downloads.started == 2)

            for query in ["first=2&last=1", "first=0&last=32", "first=-1&last=0", "first=x&last=1", "last=1"] {
                let refused = try await harness.request(.GET, "/photos/thumbnails?\(query)")
                #expect(refused.status == 400, "\(query)")
            }
            #expect(try await harness.request(.GET, "/photos/thumbnails?first=990&last=999").status == 404)
        }
    }

    @Test func aRowAskedForBeforeTheReportThatStartsItIsWaitedFor() async throws {
        try await WebHarness.with { harness in
            // Given a page that asks for its stop's thumbnails before the stop's report is taken
            let viewer = try await harness.newViewer()
            let asked = Task { try await harness.request(.GET, "/photos/thumbnails?first=3&last=3") }
            try await harness.untilAThumbnailIsAwaited("the ask never waited")

            // When the report comes
            try await harness.report(viewer, scrolling: false, rows: 3...3)

            // Then the row's thumbnail comes on the answer that was waiting
            let answer = try await asked.value
            let frames = try Self.frames(of: answer.body)
            #expect(frames.map(\.index) == [3])
            let alone = try await harness.request(.GET, "/photos/3/thumbnail")
            #expect(frames.first?.bytes == alone.body)
        }
    }

    @Test func withPreviewsARowStillArrivingHasAFrameOfEachNewPreviewBeforeItsFinalOne() async throws {
        // Given a progressive photo on screen whose origin sends half of it and holds the rest, and a
        // preview of that half made
        let photo = Array(try JPEGEncoder.encode(SamplePhoto.make(seed: 3, width: 1600, height: 1067), quality: 85, progressive: true))
        try await WebHarness.withHalfHeldPhoto(photo) { harness, gate, stream in
            _ = try await stream.next { $0.name == "photo" && $0.json["partial"] != nil }

            // When the page asks for the row with its previews, and the origin sends the rest once the
            // answer waits for what comes next
            let asked = Task { try await harness.request(.GET, "/photos/thumbnails?first=0&last=0&previews=1") }
            try await harness.untilAThumbnailIsAwaited("the answer never waited for the rest")
            gate.open(.rest)

            // Then its frames are the row's previews, numbered in order, then its final thumbnail, the
            // bytes `GET /photos/0/thumbnail` answers
            let frames = try Self.frames(of: try await asked.value.body)
            let previews = frames.dropLast().compactMap(\.preview)
            #expect(frames.count >= 2 && previews.count == frames.count - 1, "\(frames.map(\.preview))")
            #expect(previews == previews.sorted() && Set(previews).count == previews.count && previews.allSatisfy { $0 >= 1 })
            #expect(frames.allSatisfy { $0.index == 0 })
            let final = try #require(frames.last)
            #expect(final.preview == nil)
            #expect(final.bytes == (try await harness.request(.GET, "/photos/0/thumbnail")).body)
            // And without them, the final thumbnail alone; `previews` other than 0 or 1 is refused
            let alone = try Self.frames(of: try await harness.request(.GET, "/photos/thumbnails?first=0&last=0&previews=0").body)
            #expect(alone.map(\.preview) == [nil] && alone.first?.bytes == final.bytes)
            #expect(try await harness.request(.GET, "/photos/thumbnails?first=0&last=0&previews=yes").status == 400)
        }
    }

    struct Frame {
        var index: Int
        var type: String
        var bytes: Data
        /// A preview's number; nil for the final thumbnail.
        var preview: Int?
    }

    /// The frames of an answer: a line `index length type` (a preview's ends with its number), then
    /// `length` bytes.
    static func frames(of body: Data) throws -> [Frame] {
        var frames: [Frame] = []
        var rest = body[...]
        while !rest.isEmpty {
            let end = try #require(rest.firstIndex(of: UInt8(ascii: "\n")), "a frame without its line")
            let fields = String(decoding: rest[..<end], as: UTF8.self).split(separator: " ").map(String.init)
            try #require(fields.count == 3 || fields.count == 4, "line \(fields)")
            let index = try #require(Int(fields[0])), length = try #require(Int(fields[1]))
            let preview = fields.count == 4 ? Int(fields[3]) : nil
            try #require(fields.count == 3 || preview != nil, "line \(fields)")
            let start = rest.index(after: end)
            try #require(rest.distance(from: start, to: rest.endIndex) >= length, "a frame cut short")
            frames.append(Frame(index: index, type: fields[2], bytes: Data(rest[start..<(start + length)]), preview: preview))
            rest = rest[(start + length)...]
        }
        return frames
    }
}
