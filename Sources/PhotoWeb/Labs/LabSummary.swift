import Foundation

/// What a lab's page summed up at a trace's end (`PUT /api/labs/ID/summary`): each lane's stops as the
/// page timed them and its figures frozen then. Kept with the lab, so that the followers of a presented
/// lab show the presenter's table and figures rather than figures of their own (read at other moments,
/// stops timed on other screens).
struct LabSummary: Codable, Sendable {
    /// A stop as the page timed it: its time to visible, or that the person moved on, or not done within `bound`.
    struct Stop: Codable, Sendable {
        var ms: Double?
        var abandoned: Bool
        var notDone: Bool
        var bound: Double?
    }

    /// A queue's cancellations, as its ledger splits them.
    struct Cancellations: Codable, Sendable {
        var cancelledRunning: Int
        var cancelledQueued: Int
    }

    struct Ledger: Codable, Sendable {
        var downloads: Cancellations
        var filtrations: Cancellations
    }

    /// One lane's figures (the browser lane has no CPU, aborts, cancellations nor ledger).
    struct Lane: Codable, Sendable {
        var stops: [Stop]
        var downloaded: Int64
        var wasted: Int64
        var wastedCPU: Double?
        var aborted: Int?
        var cancelled: Int?
        var ledger: Ledger?
    }

    /// The trace it sums up ("impatient", or "all" for the four).
    var trace: String
    var lanes: [Lane]

    /// The summary in `body` for a lab of `laneCount` lanes: `400` with the reason when it is not one.
    static func parse(_ body: Data, laneCount: Int) throws(APIError) -> LabSummary {
        let summary: LabSummary
        do {
            summary = try JSONDecoder().decode(LabSummary.self, from: body)
        } catch {
            throw .badRequest("body must be a lab summary {\"trace\", \"lanes\": [{\"stops\", \"downloaded\", \"wasted\", ...}]}: \(error)")
        }
        guard (1...32).contains(summary.trace.count) else { throw .badRequest("\"trace\" must name the trace (1 to 32 characters)") }
        guard summary.lanes.count == laneCount else {
            throw .badRequest("\"lanes\" must have the lab's \(laneCount) lanes, got \(summary.lanes.count)")
        }
        for lane in summary.lanes {
            let amounts = [lane.downloaded, lane.wasted] + [lane.aborted, lane.cancelled].compactMap { $0.map(Int64.init) }
            let times = lane.stops.flatMap { [$0.ms, $0.bound] }.compactMap { $0 } + [lane.wastedCPU].compactMap { $0 }
            guard amounts.allSatisfy({ $0 >= 0 }), times.allSatisfy({ $0.isFinite && $0 >= 0 }) else {
                throw .badRequest("a lane's figures must be finite and not negative")
            }
        }
        return summary
    }
}
