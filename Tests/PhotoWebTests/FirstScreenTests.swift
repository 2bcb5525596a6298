import Foundation
import PhotoPipeline
@testable import PhotoWeb
import Testing

@Suite("The page's first screen starts with the page", .serialized)
struct FirstScreenTests {
    /// Rows whose download started, from `stream`, once `expected` have all started (at most 60 s, a failure bound).
    static func started(_ expected: Set<Int>, in stream: AsyncStream<PipelineEvent>) async throws -> Set<Int> {
        try await withThrowingTaskGroup(of: Set<Int>.self) { group in
            group.addTask {
                var started: Set<Int> = []
                for await event in stream {
                    if case .operation(let op) = event.kind, op.queue == .download, op.outcome == .started {
                        started.insert(op.index)
                        if started.isSuperset(of: expected) { return started }
                    }
                }
                return started
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                throw TestFailure("downloads of \(expected.sorted()) never all started")
            }
            defer { group.cancelAll() }
            return try await group.next() ?? []
        }
    }

    @Test func aPageLoadStartsTheRowsAtItsRowBeforeItReports() async throws {
        try await WebHarness.with(photoCount: 30) { harness in
            // Given a list whose first rows from row 10 are not done (some may be failed from the start),
            // and a client whose window is not known yet: the rows every window shows
            let rows = 10..<(10 + FirstScreen.surelyShownRows)
            let expected = Set(rows.filter { harness.pipeline.record($0).state == .new })
            let stream = harness.pipeline.events.subscribe()

            // When a page is loaded at row 11 (1-based, as the page's URL keeps it), and nothing reports
            let page = try await harness.request(.GET, "/?row=11")
            #expect(page.status == 200)

            // Then exactly those rows start downloading
            let started = try await Self.started(expected, in: stream)
            #expect(started == expected)
            #expect(harness.pipeline.stats.downloads.started == expected.count)
        }
    }

    @Test func aHeadOrAnAPIViewerStartsNothing() async throws {
        try await WebHarness.with(photoCount: 30) { harness in
            let stream = harness.pipeline.events.subscribe()
            #expect(try await harness.request(.HEAD, "/").status == 200)
            let viewer = try await harness.newViewer()
            // A report of rows 20-21 is the first work, and the only work, there is
            try await harness.report(viewer, scrolling: false, rows: 20...21)
            let expected = Set((20...21).filter { harness.pipeline.record($0).state == .new })
            let started = try await Self.started(expected, in: stream)
            #expect(started.isSubset(of: Set(20...29)))  // the rows on screen, then read ahead below
        }
    }

    @Test func aClientsNextPageLoadStartsTheRowsItsWindowShowed() async throws {
        try await WebHarness.with(photoCount: 40) { harness in
            // Given a client whose window showed 9 rows at its last stop
            let viewer = try await harness.newViewer()
            try await harness.report(viewer, scrolling: false, rows: 0...8)
            let stream = harness.pipeline.events.subscribe()

            // When it loads the page at row 21 (1-based), before that page reports
            let expected = Set((20...28).filter { harness.pipeline.record($0).state == .new })
            #expect(try await harness.request(.GET, "/?row=21").status == 200)

            // Then those 9 rows start, and none below them
            let started = try await Self.started(expected, in: stream)
            #expect(started.filter { $0 >= 20 } == expected, "\(started.sorted())")
        }
    }
}
