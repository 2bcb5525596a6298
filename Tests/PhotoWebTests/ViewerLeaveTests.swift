import Foundation
@testable import PhotoWeb
import Testing
import PhotoPipeline
import PhotoServer

@Suite("Viewers leave and see their queues at once")
struct ViewerLeaveTests {
    @Test func aViewerThatLeavesIsGoneAtOnceAndTheOthersCountFollows() async throws {
        try await WebHarness.with { harness in
            // Given two viewers with their streams open, one of them with work done and under way
            let staying = try await harness.newViewer()
            let leaving = try await harness.newViewer()
            let stayingEvents = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(staying)")
            let leavingEvents = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(leaving)")
            _ = try await stayingEvents.next { $0.name == "stats" && $0.json["viewers"] as? Int == 2 }
            try await harness.report(leaving, scrolling: false, rows: 0...1)
            _ = try await leavingEvents.next { event in
                event.name == "queues" && ((event.json["work"] as? [String: Any])?["bytes"] as? Int ?? 0) > 0
            }

            // When the leaving one says so (as its page does on pagehide)
            let left = try await harness.request(.DELETE, "/api/viewers/\(leaving)")

            // Then it is gone at once: its stream ends, the other's count follows, and saying it again is a 404
            #expect(left.status == 204)
            #expect(harness.application.web.context.viewers.session(.init(leaving)) == nil)
            // And the pipeline keeps no record of what its work cost
            #expect(harness.pipeline.queueStatus(for: .init(leaving)).work == ViewerWork.Amount())
            while try await leavingEvents.next() != nil {}
            _ = try await stayingEvents.next { $0.name == "stats" && $0.json["viewers"] as? Int == 1 }
            let again = try await harness.request(.DELETE, "/api/viewers/\(leaving)")
            #expect(again.status == 404)
            #expect((again.json["error"] as? String)?.contains("unknown viewer") == true)
        }
    }

    @Test func aReportIsAnsweredWithTheQueuesItChanged() async throws {
        // Given no periodic tick to send queue counts: only the report's handling can
        try await WebHarness.with(configure: { $0.web.tick = .seconds(3_600) }) { harness in
            let viewer = try await harness.newViewer()
            let events = try await EventStreamReader(port: harness.application.port, target: "/events?viewer=\(viewer)")
            _ = try await events.next { $0.name == "snapshot" }

            // When the viewer starts scrolling, and then stops
            let isSuspended = { (event: EventStreamReader.Event) in
                event.name == "queues" ? (event.json["download"] as? [String: Any])?["suspended"] as? Bool : nil
            }
            try await harness.report(viewer, scrolling: true)
            _ = try await events.next { isSuspended($0) == true }
            try await harness.report(viewer, scrolling: false, rows: 0...1)

            // Then each report brought the queues as it left them: suspended, then not
            _ = try await events.next { isSuspended($0) == false }
        }
    }

    @Test func aReportHandledWhileItsViewerLeavesLeavesNothingWantedForIt() async throws {
        try await WebHarness.with { harness in
            // Given a viewer whose report is being handled (its controller taken) when it leaves:
            // a report that races its DELETE or its idle timeout
            let id = try await harness.newViewer()
            let session = try #require(harness.application.web.context.viewers.session(.init(id)))
            let pipeline = harness.pipeline
            session.withController(on: pipeline, strategy: .prefetch(margin: 3)) { controller in
                harness.application.web.context.viewers.remove(session.id)?.close()

                // When the report's rows reach the pipeline after the viewer has gone
                controller.loadImagesForOnscreenRows(0...4)
            }

            // Then nothing is left wanted for it, nor any record of its work, and it gets no new controller
            #expect(pipeline.pendingRows(of: .init(id)).isEmpty)
            #expect(pipeline.queueStatus(for: .init(id)).work == ViewerWork.Amount())
            #expect(session.controller(on: pipeline, strategy: .prefetch(margin: 3)) == nil)
        }
    }
}
