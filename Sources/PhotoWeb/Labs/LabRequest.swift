import Foundation
import PhotoPipeline

/// A parsed, checked `POST /api/labs` body: `{"lanes": [{"strategy", "prefetch"}...], "latencyMs",
/// "bandwidth", "photos"}`.
struct LabRequest: Equatable {
    /// What runs in one lane.
    enum Lane: Equatable {
        /// A pipeline of its own following `strategy`, driven by the lane's viewer.
        case server(SchedulingStrategy)
        /// The web platform alone: lazy `<img>` elements in the page, nothing on the server.
        case browser

        var name: String {
            switch self {
            case .server(let strategy): strategy.name
            case .browser: "browser"
            }
        }
    }

    /// Lanes side by side, at most this many.
    static let maxLanes = 5

    var lanes: [Lane]
    var network: LabNetwork
    var photos: Int

    /// Parses `data`; a list of `available` photos; `defaults` when the body leaves the network out,
    /// and `origin` says which networks it can simulate.
    static func parse(_ data: Data, available: Int, defaults: LabNetwork, origin: any OriginServing) throws(APIError) -> LabRequest {
        guard let fields = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw .badRequest("body must be a JSON object {\"lanes\": [{\"strategy\": ...}], \"latencyMs\", \"bandwidth\", \"photos\"}")
        }
        guard let laneList = fields["lanes"] as? [Any], !laneList.isEmpty else {
            throw .badRequest("\"lanes\" must be a non-empty list of {\"strategy\": eager|visible|prefetch|serial|browser}")
        }
        guard laneList.count <= maxLanes else { throw .badRequest("at most \(maxLanes) lanes, got \(laneList.count)") }
        var lanes: [Lane] = []
        for (position, item) in laneList.enumerated() {
            guard let lane = item as? [String: Any] else { throw .badRequest("lane \(position) is not an object {\"strategy\"}") }
            if lane["strategy"] as? String == "browser" {
                lanes.append(.browser)
                continue
            }
            let chosen: SchedulingStrategy?
            do {
                chosen = try RequestFields.strategy(in: lane)
            } catch {
                throw .badRequest("lane \(position): \(error.description)")
            }
            guard let strategy = chosen else {
                throw .badRequest("lane \(position) has no \"strategy\" (eager, visible, prefetch, serial or browser)")
            }
            lanes.append(.server(strategy))
        }
        guard lanes.contains(where: { $0 != .browser }) else {
            throw .badRequest("a lab needs at least one lane run by the server (eager, visible, prefetch or serial)")
        }
        var network = defaults
        if let milliseconds = try RequestFields.field("latencyMs", Int.self, in: fields) {
            let range = origin.latencyRange
            guard range.contains(milliseconds) else {
                throw .badRequest("\"latencyMs\" must be from \(range.lowerBound) to \(range.upperBound), got \(milliseconds)")
            }
            network.latencyMs = milliseconds
        }
        if let bytes = try RequestFields.field("bandwidth", Int.self, in: fields) {
            let range = origin.bandwidthRange
            guard range.contains(bytes) else {
                throw .badRequest("\"bandwidth\" must be from \(range.lowerBound) to \(range.upperBound) bytes/s, got \(bytes)")
            }
            network.bandwidth = bytes
        }
        let photos = try RequestFields.field("photos", Int.self, in: fields) ?? available
        guard (1...max(1, available)).contains(photos) else {
            throw .badRequest("\"photos\" must be from 1 to \(available) (the photos the server lists), got \(photos)")
        }
        return LabRequest(lanes: lanes, network: network, photos: photos)
    }
}
