import Foundation
import PhotoPipeline
import Locking
import Logging
import PhotoTransport

/// The labs running now, at most `maxLabs`: each server lane a channel of its own, its viewer one
/// of the server's viewers. A lab whose page left (a lane's viewer dropped after the lane's idle
/// timeout) is ended on the next tick. At the cap, or at a client's share, the lab (the client's
/// own) whose page left longest ago ends at once to make room.
///
/// Lock order: a leaf. Pipelines are made and labs closed after it is released.
final class LabRegistry: Sendable {
    struct Settings: Sendable {
        /// Labs at once; one more is refused with 503.
        var maxLabs: Int
        /// Labs one client (`ClientAddress.group`) runs at once; one more is refused with 429.
        var labsPerClient = Int.max
        /// Browser-lane photos sent at once; one more is refused with 503.
        var maxImageTransfers: Int = 256
        /// How a lane's channel keeps its viewer (its idle timeout ends the lab).
        var lane: PhotoChannel.Settings
        /// Each lane's memory cache.
        var laneMemoryBudgetBytes: Int
    }

    let settings: Settings
    /// The process-wide bounds; the server's list is their host, lab lanes their guests.
    let bounds: SharedBounds
    /// The browser lanes' photos being sent now.
    let imageTransfers: LabImageTransfers
    /// The server's viewers, the lanes' among them.
    let viewers: ViewerRegistry
    /// The built-in origin, which simulates the lab's network when it serves the list.
    let origin: any OriginServing
    let logger: Logger
    /// The labs each client runs.
    let places: ClientPlaces
    /// The labs presented now, and their followers' watchers.
    let presentations: LabPresentations

    private struct State {
        var labs: [String: Lab] = [:]
        /// Labs being made: they count against the cap before they exist.
        var making = 0
        /// The last lane's owner number in the shared bounds.
        var lastOwner = 0
        /// The client each lab holds a place of, by lab id.
        var clients: [String: String] = [:]
    }

    private let state = Locked(State())

    init(settings: Settings, bounds: SharedBounds, viewers: ViewerRegistry, origin: any OriginServing, logger: Logger) {
        self.settings = settings
        self.bounds = bounds
        self.viewers = viewers
        self.origin = origin
        self.logger = logger
        imageTransfers = LabImageTransfers(limit: settings.maxImageTransfers)
        places = ClientPlaces("labs", perClient: settings.labsPerClient)
        presentations = LabPresentations(viewers: viewers)
    }

    /// Labs running now.
    var count: Int { state.withLock { $0.labs.count } }

    func lab(_ id: String) -> Lab? { state.withLock { $0.labs[id] } }

    /// The channels of every running lab's server lanes.
    var channels: [PhotoChannel] {
        state.withLock { Array($0.labs.values) }.flatMap { $0.lanes.compactMap(\.channel) }
    }

    /// Starts a lab of `request` over the first photos of `records`, each lane's pipeline made from
    /// `base` (the server's settings); a 503 past the cap, or when the server has its maximum of
    /// viewers; a 429 when `client` runs its share of labs already, none of them left by its page.
    /// `browserImage` is the browser lane's URL of a photo.
    func create(
        _ request: LabRequest, records: [PhotoRecord], base: PipelineConfiguration, client: String? = nil,
        browserImage: (PhotoRecord) -> String
    ) throws(APIError) -> Lab {
        if let client, !places.take(client), !(makeRoom(of: client) && places.take(client)) { throw places.refusal(client) }
        do throws(APIError) {
            return try make(request, records: records, base: base, client: client, browserImage: browserImage)
        } catch {
            client.map(places.give)
            throw error
        }
    }

    private func make(
        _ request: LabRequest, records: [PhotoRecord], base: PipelineConfiguration, client: String?,
        browserImage: (PhotoRecord) -> String
    ) throws(APIError) -> Lab {
        var firstOwner = admit(request)
        if firstOwner == nil, makeRoom() { firstOwner = admit(request) }
        guard let firstOwner else {
            throw .unavailable("the lab is busy: \(settings.maxLabs) labs run at once at most; try again in a minute (a lab ends when its page closes)")
        }
        let photos = Array(records.prefix(request.photos))
        // The built-in origin, when it serves the list, sends the lanes' photos over the lab's network.
        let simulated = origin.servesList
        let entries = photos.map { record in
            PhotoEntry(
                name: record.name,
                url: simulated && !record.url.isEmpty
                    ? origin.url(record.url, latencyMs: request.network.latencyMs, bandwidth: request.network.bandwidth) : record.url)
        }
        var lanes: [LabLane] = []
        do throws(APIError) {
            for (position, kind) in request.lanes.enumerated() {
                guard case .server(let strategy) = kind else {
                    lanes.append(LabLane())
                    continue
                }
                lanes.append(try LabLane(
                    strategy: strategy, entries: entries,
                    configuration: laneConfiguration(base, strategy: strategy, owner: firstOwner + position),
                    viewers: viewers, settings: settings.lane, logger: logger))
            }
        } catch {
            lanes.forEach { $0.close() }
            state.withLock { $0.making -= 1 }
            throw error
        }
        let lab = Lab(
            id: String(UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(16)), network: request.network, photos: photos.count,
            lanes: lanes, browserImages: request.lanes.contains(.browser) ? photos.map(browserImage) : [])
        state.withLock { state in
            state.making -= 1
            state.labs[lab.id] = lab
            state.clients[lab.id] = client
        }
        return lab
    }

    /// Counts a lab of `request` as being made: its lanes' first owner number, or nil at the cap.
    private func admit(_ request: LabRequest) -> Int? {
        state.withLock { state in
            guard state.labs.count + state.making < settings.maxLabs else { return nil }
            state.making += 1
            defer { state.lastOwner += request.lanes.count }
            return state.lastOwner + 1
        }
    }

    /// Ends the lab (of `client`, if named) whose page left longest ago (every server lane's stream
    /// gone); returns whether one ended. Viewers are asked outside the lock (lock order).
    private func makeRoom(of client: String? = nil) -> Bool {
        let labs = state.withLock { state in state.labs.values.filter { client == nil || state.clients[$0.id] == client } }
        let idle = labs.compactMap { lab in lab.idleSince.map { (lab, $0) } }
        guard let oldest = idle.min(by: { $0.1 < $1.1 })?.0 else { return false }
        return end(oldest.id)
    }

    /// A lane's pipeline settings: the server's, with a memory cache of its own that keeps
    /// thumbnails (not originals) and no disk cache (so every run is cold), the guest's share of the
    /// shared bounds, and for `serial` one download and one filtration at a time.
    private func laneConfiguration(_ base: PipelineConfiguration, strategy: SchedulingStrategy, owner: Int) -> PipelineConfiguration {
        var configuration = base
        configuration.memoryBudgetBytes = settings.laneMemoryBudgetBytes
        configuration.resumeBudgetBytes = min(base.resumeBudgetBytes, settings.laneMemoryBudgetBytes)
        configuration.keepsOriginals = false
        configuration.sharedBounds = bounds.taken(as: .guest, owner: owner)
        if strategy == .serial {
            configuration.maxConcurrentDownloads = 1
            configuration.maxConcurrentTransfers = 1
            configuration.maxConcurrentFiltrations = 1
        }
        return configuration
    }

    /// Ends lab `id` at once; false when there is no such lab.
    @discardableResult
    func end(_ id: String) -> Bool {
        guard let lab = remove(id) else { return false }
        lab.close()
        return true
    }

    private func remove(_ id: String) -> Lab? {
        let (lab, client) = state.withLock { ($0.labs.removeValue(forKey: id), $0.clients.removeValue(forKey: id)) }
        client.map(places.give)
        return lab
    }

    /// Ends every lab (shutdown).
    func endAll() {
        let ids = state.withLock { Array($0.labs.keys) }
        ids.forEach { end($0) }
    }

    /// Ends the labs whose page left: a lane's viewer was dropped (or left). Called on each tick, with
    /// the presentations' (a presentation whose lab ended waits for its presenter's next run, then ends).
    func endAbandoned() {
        let labs = state.withLock { Array($0.labs.values) }
        for lab in labs where lab.isAbandoned(in: viewers) {
            end(lab.id)
        }
        presentations.tick(isRunning: { self.lab($0) != nil })
    }
}
