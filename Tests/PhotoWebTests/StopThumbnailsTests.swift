import Foundation
import HTTPTypes
import PhotoCodecs
import PhotoPipeline
import PhotoServer
@testable import PhotoWeb
import TestOrigin
import Testing

/// A stop that asks for its rows' thumbnails (`POST /api/viewport?thumbnails=A-B`): its report is
/// taken first, then the final thumbnails of those rows come on its answer, each the moment it is made
/// (with `previews=1`, the previews of its bytes arrived first); a row with nothing made nor coming is
/// not waited for.
@Suite("A stop's thumbnails on its report's answer", .timeLimit(.minutes(2)))
struct StopThumbnailsTests {
    /// A stop of `viewer` at `rows`, asking for the thumbnails of `asked`.
    static func stop(_ harness: WebHarness, _ viewer: String, rows: ClosedRange<Int>, asked: String, previews: String? = nil) async throws -> TestResponse {
        try await harness.request(.POST, "/api/viewport?thumbnails=\(asked)" + (previews.map { "&previews=\($0)" } ?? ""),
                                  headers: [.contentType: "application/json"],
                                  body: Data(#"{"viewer": "\#(viewer)", "scrolling": false, "first": \#(rows.lowerBound), "last": \#(rows.upperBound)}"#.utf8))
    }

    @Test func theStopStartsItsRowsAndItsAnswerBringsEachThumbnailAsAFrame() async throws {
        try await WebHarness.with { harness in
            let viewer = try await harness.newViewer()

            // When a stop at rows 0...1 asks for their thumbnails, with no report before it
            let answer = try await Self.stop(harness, viewer, rows: 0...1, asked: "0-1")

            // Then the report started them and the answer brought both, the bytes `GET /photos/N/thumbnail` answers
            #expect(answer.status == 200)
            #expect(answer.headers[.contentType] == "application/octet-stream")
            let frames = try Self.frames(of: answer.body)
            #expect(frames.map(\.index).sorted() == [0, 1])
            for frame in frames {
                let alone = try await harness.request(.GET, "/photos/\(frame.index)/thumbnail")
                #expect(frame.type == alone.headers[.contentType] && frame.bytes == alone.body)
            }
            #expect(harness.pipeline.stats.downloads.started == 2)
        }
    }

    @Test func readyRowsComeAtOnceAndABadAskIsRefusedHavingChangedNothing() async throws {
        try await WebHarness.with { harness in
            let viewer = try await harness.newViewer()
            try await harness.report(viewer, scrolling: false, rows: 0...1)
            // (The pipeline's own wait: a stream opened after the report may hear of a row filtered
            // before it only in its snapshot, and waited 60 s for a photo event in one run of ten.)
            try await harness.waitUntilFiltered(0)
            try await harness.waitUntilFiltered(1)
            // Given rows 0 and 1 filtered: a stop asking for them has both at once, and row 2, never
            // wanted, has nothing made nor coming
            let answer = try await Self.stop(harness, viewer, rows: 0...1, asked: "0-1")
            #expect(try Self.frames(of: answer.body).map(\.index).sorted() == [0, 1])
            #expect(harness.pipeline.thumbnailMadeOrComing(of: 2) == false && harness.pipeline.thumbnailsAwaited == 0)

            // A bad ask is refused before the report is taken
            let before = harness.pipeline.stats.downloads.started
            for (asked, rows, status) in [("2-1", 0...2, 400), ("0-32", 0...40, 400), ("-1-0", 0...2, 400), ("x-1", 0...2, 400),
                                          ("1", 0...2, 400), ("3-4", 3...3, 422), ("3-5", 3...4, 422)] {
                let refused = try await Self.stop(harness, viewer, rows: rows, asked: asked)
                #expect(refused.status == status, "\(asked)")
            }
            #expect(try await Self.stop(harness, viewer, rows: 3...4, asked: "3-4", previews: "yes").status == 400)
            #expect(try await harness.post("/api/viewport?previews=1", json: #"{"viewer": "\#(viewer)", "scrolling": true}"#).status == 400)
            #expect(harness.pipeline.stats.downloads.started == before)
        }
    }

    @Test func withPreviewsARowStillArrivingHasAFrameOfEachNewPreviewBeforeItsFinalOne() async throws {
        // Given a progressive photo on screen whose origin sends half of it and holds the rest, and a
        // preview of that half made
        let photo = Array(try JPEGEncoder.encode(SamplePhoto.make(seed: 3, width: 1600, height: 1067), quality: 85, progressive: true))
        try await WebHarness.withHalfHeldPhoto(photo) { harness, gate, stream in
            _ = try await stream.next { $0.name == "photo" && $0.json["partial"] != nil }
            let viewer = try await harness.newViewer()

            // When the page's stop asks for the row with its previews, and the origin sends the rest
            // once the answer waits for what comes next
            let asked = Task { try await Self.stop(harness, viewer, rows: 0...0, asked: "0-0", previews: "1") }
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
            // And without them, the final thumbnail alone
            let alone = try Self.frames(of: try await Self.stop(harness, viewer, rows: 0...0, asked: "0-0", previews: "0").body)
            #expect(alone.map(\.preview) == [nil] && alone.first?.bytes == final.bytes)
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
