import Foundation
@testable import PhotoWeb
import Testing

/// A lab lane keeps its most recent stops and counts of them all, so its report stays small
/// however long (or however hostilely) its rows are reported.
@Suite("A lab's stops stay few")
struct LabStopsTests {
    @Test func alternatingRowsKeepOnlyTheLastStopsAndCountThemAll() {
        let stops = LabStops(kept: 100)
        let start = ContinuousClock.now
        // A client alternating its lane's rows: each report a new stop, the waiting one abandoned
        for report in 0..<127_500 {
            let rows = report.isMultiple(of: 2) ? 0...5 : 6...11
            stops.stopped(on: rows, done: false, at: start)
        }
        stops.completed(6...11, at: start + .milliseconds(250))

        let kept = stops.all
        #expect(kept.count == 100)
        #expect(kept.last == LabStops.Stop(first: 6, last: 11, ms: 250, abandoned: false))
        #expect(kept.dropLast().allSatisfy { $0.abandoned })
        #expect(stops.counts == LabStops.Counts(reported: 127_500, timed: 1, abandoned: 127_499))
    }

    @Test func aStopAlreadyDoneIsTimedAtOnceAndTheSameRowsAgainAreTheSameStop() {
        let stops = LabStops(kept: 2)
        stops.stopped(on: 0...3, done: true)
        stops.stopped(on: 0...3, done: false)
        stops.stopped(on: 4...7, done: false)
        stops.stopped(on: 8...9, done: true)
        #expect(stops.all.map(\.first) == [4, 8])
        #expect(stops.all.map(\.abandoned) == [true, false])
        #expect(stops.counts == LabStops.Counts(reported: 3, timed: 2, abandoned: 1))
        #expect(stops.waiting == nil)
    }

    @Test func theLabReportCarriesTheKeptStopsAndTheCounts() throws {
        var lane = LabPayloads.Lane(viewer: "v", strategy: "visible")
        lane.stops = [LabStops.Stop(first: 0, last: 1, ms: nil, abandoned: true)]
        lane.stopCounts = LabStops.Counts(reported: 7, timed: 3, abandoned: 4)
        let json = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(lane)) as? [String: Any])
        #expect((json["stops"] as? [Any])?.count == 1)
        #expect(json["stopCounts"] as? [String: Int] == ["reported": 7, "timed": 3, "abandoned": 4])
    }
}
