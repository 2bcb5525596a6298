import Foundation
import PhotoCodecs
@testable import PhotoPipeline
import TestOrigin
import Testing

@Suite("First pixels before the last byte: previews of a photo still arriving")
struct ArrivedPreviewTests {
    static let progressive = Array(try! JPEGEncoder.encode(SamplePhoto.make(seed: 3, width: 1600, height: 1067), quality: 85, progressive: true))

    static func partials(of index: Int, in events: [PipelineEvent]) -> [(position: Int, sequence: Int)] {
        events.enumerated().compactMap { position, event in
            if case .partialPreview(index, let sequence, _) = event.kind { (position, sequence) } else { nil }
        }
    }

    @Test func aRowOnScreenShowsPreviewsInOrderUntilItsFinalThumbnailReplacesThem() async throws {
        // Given a progressive photo on screen whose origin sends half of it and holds the rest, and a
        // second one held the same way that a viewer wants without having it on screen (eager)
        let gate = OriginGate()
        gate.open(.firstBytes)
        let half = Self.progressive.count / 2
        let harness = try PipelineHarness(photos: [
            ("/p0.jpg", .gated(bytes: Self.progressive, firstBytes: half, gate: gate)),
            ("/p1.jpg", .gated(bytes: Self.progressive, firstBytes: half, gate: gate)),
        ])
        defer { harness.close() }
        harness.controller(strategy: .visible).loadImagesForOnscreenRows(0...0)
        let eager = harness.controller(strategy: .eager)

        // Then a preview of the bytes arrived comes while the rest is held, served apart from the cache
        try await harness.recorder.wait(for: "a preview of row 0") { !Self.partials(of: 0, in: $0).isEmpty }
        let partial = try harness.pipeline.image(.partial, of: 0)
        #expect(partial.format == .jpeg)
        #expect(throws: PipelineError.self) { try harness.pipeline.image(.thumbnail, of: 0) }
        // And none for the row off screen, whose first half has arrived too
        try await harness.recorder.wait(photo: 1, "half downloaded") { state in
            if case .downloading(let progress?) = state { return progress >= 0.45 } else { return false }
        }
        #expect(Self.partials(of: 1, in: await harness.recorder.events).isEmpty)
        // And a viewer whose stream begins now learns of the row's preview from its snapshot
        let held = harness.pipeline.arrivedPreviewSequences(in: [0, 1])
        #expect(held.keys.sorted() == [0] && held[0, default: 0] >= 1)
        eager.close()

        // When the origin sends the rest
        gate.open(.rest)
        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }

        // Then the previews came in order, all before the final thumbnail, which is not a preview
        let events = await harness.recorder.events
        let previews = Self.partials(of: 0, in: events)
        let filtered = try #require(events.firstIndex { if case .photo(0, .filtered) = $0.kind { true } else { false } })
        #expect(previews.map(\.sequence) == Array(1...previews.count))
        #expect(previews.allSatisfy { $0.position < filtered })
        let thumbnail = try harness.pipeline.image(.thumbnail, of: 0)
        #expect(thumbnail.data != partial.data)
        // And the preview is gone, never kept as the final image: a page asking for its last preview
        // as the photo finished gets the final thumbnail (not an error its console would log)
        #expect(try harness.pipeline.image(.partial, of: 0).data == thumbnail.data)
        #expect(harness.pipeline.arrivedPreviewSequences(in: [0, 1]).isEmpty)
    }

    @Test func aThumbnailAskedWithItsPreviewsGetsEachNewOneThenTheFinalThumbnail() async throws {
        // Given a progressive photo on screen whose origin sends half of it and holds the rest
        let gate = OriginGate()
        gate.open(.firstBytes)
        let harness = try PipelineHarness(photos: [
            ("/p0.jpg", .gated(bytes: Self.progressive, firstBytes: Self.progressive.count / 2, gate: gate)),
        ])
        defer { harness.close() }
        harness.controller(strategy: .visible).loadImagesForOnscreenRows(0...0)
        let deadline = ContinuousClock.now + .seconds(60)

        // When its thumbnail is asked for with its previews while the rest is held
        let first = try await harness.pipeline.nextThumbnail(of: 0, after: 0, until: deadline)

        // Then the answer is a preview of the bytes arrived, not a wait for the final thumbnail
        guard case .preview(let shown, let preview) = first else {
            Issue.record("the first answer was the final thumbnail, with the rest held")
            return
        }
        #expect(shown >= 1 && preview.format == .jpeg)
        #expect(throws: PipelineError.self) { try harness.pipeline.image(.thumbnail, of: 0) }

        // And asked again after it, as the origin sends the rest: newer previews only, in order, then
        // the final thumbnail, which ends it
        let rest = Task {
            var steps: [PhotoPipeline.ThumbnailStep] = []
            var after = shown
            while true {
                let step = try await harness.pipeline.nextThumbnail(of: 0, after: after, until: deadline)
                steps.append(step)
                guard case .preview(let sequence, _) = step else { return steps }
                after = sequence
            }
        }
        gate.open(.rest)
        let steps = try await rest.value
        let sequences = steps.compactMap { if case .preview(let sequence, _) = $0 { sequence } else { nil } }
        #expect(sequences == sequences.sorted() && Set(sequences).count == sequences.count && sequences.allSatisfy { $0 > shown })
        guard case .final(let final)? = steps.last else {
            Issue.record("no final thumbnail: \(steps.count) steps")
            return
        }
        #expect(final.data == (try harness.pipeline.image(.thumbnail, of: 0)).data)
    }

    @Test func aRowOnScreenIsDecodedAsItsBytesArriveAndItsThumbnailIsTheWholeBodysOwn() async throws {
        // Given a progressive photo on screen and a baseline one wanted off screen, each origin sending
        // half and holding the rest
        let gate = OriginGate()
        gate.open(.firstBytes)
        let baseline = Array(try JPEGEncoder.encode(SamplePhoto.make(seed: 4, width: 1600, height: 1067), quality: 85))
        let harness = try PipelineHarness(photos: [
            ("/p0.jpg", .gated(bytes: Self.progressive, firstBytes: Self.progressive.count / 2, gate: gate)),
            ("/p1.jpg", .gated(bytes: baseline, firstBytes: baseline.count / 2, gate: gate)),
        ])
        defer { harness.close() }
        harness.controller(strategy: .visible).loadImagesForOnscreenRows(0...0)
        let eager = harness.controller(strategy: .eager)
        defer { eager.close() }
        try await harness.recorder.wait(for: "a preview of row 0") { !Self.partials(of: 0, in: $0).isEmpty }
        try await harness.recorder.wait(photo: 1, "half downloaded") { state in
            if case .downloading(let progress?) = state { return progress >= 0.45 } else { return false }
        }

        // When the rest arrives
        gate.open(.rest)
        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }
        try await harness.recorder.wait(photo: 1, "filtered") { $0 == .filtered }

        // Then the row on screen's thumbnail was finished from its decode ahead, the other's decoded afresh
        #expect(harness.pipeline.stats.decodedAhead == 1)
        // And each is the thumbnail of the whole body, to the byte
        let renderer = harness.pipeline.renderer
        let height = harness.pipeline.configuration.thumbnailHeight
        #expect(try harness.pipeline.image(.thumbnail, of: 0).data
            == renderer.thumbnail(of: Data(Self.progressive), height: height).data)
        #expect(try harness.pipeline.image(.thumbnail, of: 1).data == renderer.thumbnail(of: Data(baseline), height: height).data)
    }
}
