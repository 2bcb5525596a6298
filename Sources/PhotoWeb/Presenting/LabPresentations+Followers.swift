import Foundation
import Locking
import PhotoPipeline

/// A lab presentation's followers: joining (bounded per presentation), their view of the presenter's
/// run with a watcher per server lane, leaving, and the tick that drops those that left and ends
/// presentations whose presenter did not come back.
extension LabPresentations {
    /// `client` follows `code` (at most `limit` follow one presentation): its key, for its view.
    /// `inRoom`: admitted to the room (at most `roomSize` there; a 429 when it filled meanwhile).
    func follow(
        _ code: FollowCode, client: String?, limit: Int, inRoom: Bool = false, roomSize: Int = .max, now: ContinuousClock.Instant = .now
    ) throws(APIError) -> FollowCode {
        let outcome = state.withLock { state -> Result<(FollowCode, LabPresentationNews), APIError> in
            guard var presentation = state.codes[code] else {
                return .failure(state.codes.gone(code))
            }
            guard presentation.followers.count < limit else {
                return .failure(.tooManyRequests(
                    "this presentation has \(limit) followers, its most (--followers-per-presentation)", retryAfter: 30))
            }
            if inRoom, presentation.followers.values.count(where: \.inRoom) >= roomSize {
                return .failure(Presentations.roomFull(roomSize))
            }
            let key = FollowCode.random()
            presentation.followers[key] = Follower(key: key, client: client, lastSeen: now, inRoom: inRoom)
            state.codes[code] = presentation
            var news = LabPresentationNews()
            news.tellPresenter(of: presentation)
            return .success((key, news))
        }
        let (key, news) = try outcome.get()
        news.deliver()
        return key
    }

    /// The view of follower `key` of `code`, its watchers made for the presenter's run if they watch
    /// another (a 503 or 429 when the server or its client has no room for them). A 404 for a code or
    /// key that names no follower (the same whatever was wrong).
    func view(_ code: FollowCode, follower key: FollowCode, now: ContinuousClock.Instant = .now) throws(APIError) -> LabPresentationPayloads.View {
        let needed = try state.withLock { state throws(APIError) -> (lab: Lab, run: Int, client: String?, stale: [ViewerSession])? in
            guard var presentation = state.codes[code], var follower = presentation.followers[key] else {
                throw Self.noFollower(code, ended: state.codes.hasEnded(code))
            }
            follower.lastSeen = now
            defer { presentation.followers[key] = follower; state.codes[code] = presentation }
            guard let lab = presentation.lab, follower.run != presentation.run else { return nil }
            let stale = follower.watchers.compactMap { $0 }
            stale.forEach { state.watchers[$0.id] = nil }
            follower.watchers = []
            return (lab, presentation.run, follower.client, stale)
        }
        if let needed {
            needed.stale.forEach { viewers.remove($0.id)?.close() }
            let made = try watchers(of: needed.lab, client: needed.client)
            let kept = state.withLock { state -> Bool in
                guard var presentation = state.codes[code], presentation.run == needed.run,
                      var follower = presentation.followers[key] else { return false }
                follower.run = needed.run
                follower.watchers = made
                presentation.followers[key] = follower
                state.codes[code] = presentation
                made.compactMap { $0 }.forEach { state.watchers[$0.id] = $0 }
                return true
            }
            // The run changed, or the follower left, while they were made: another view makes the right ones.
            if !kept { made.compactMap { $0 }.forEach { viewers.remove($0.id)?.close() } }
        }
        let (presentation, follower) = try state.withLock { state throws(APIError) -> (Presentation, Follower) in
            guard let presentation = state.codes[code], let follower = presentation.followers[key] else {
                throw Self.noFollower(code, ended: state.codes.hasEnded(code))
            }
            return (presentation, follower)
        }
        // The figures are read with no lock held (each lane's pipeline and stops take theirs).
        let lab = presentation.lab.flatMap { lab -> LabPresentationPayloads.Lab? in
            guard follower.run == presentation.run else { return nil }
            let report = lab.report
            var lanes = report.lanes
            for index in lanes.indices { lanes[index].viewer = follower.watchers[safe: index]??.id.rawValue }
            return .init(photos: report.photos, latencyMs: report.latencyMs, bandwidth: report.bandwidth, lanes: lanes, summary: report.summary)
        }
        return .init(presentation: LabPresentationNews.payload(of: presentation, role: .follower, ended: false), follower: key.rawValue, lab: lab)
    }

    /// Follower `key` of `code` leaves: its watchers go at once, and the presenter hears one fewer.
    func leave(_ code: FollowCode, follower key: FollowCode) throws(APIError) {
        let outcome = state.withLock { state -> Result<(Follower, LabPresentationNews), APIError> in
            guard var presentation = state.codes[code], let follower = presentation.followers.removeValue(forKey: key) else {
                return .failure(Self.noFollower(code, ended: state.codes.hasEnded(code)))
            }
            state.codes[code] = presentation
            follower.watchers.compactMap { $0 }.forEach { state.watchers[$0.id] = nil }
            var news = LabPresentationNews()
            news.tellPresenter(of: presentation)
            return .success((follower, news))
        }
        let (follower, news) = try outcome.get()
        follower.watchers.compactMap { $0 }.forEach { viewers.remove($0.id)?.close() }
        news.deliver()
    }

    /// Each tick: presentations whose lab ended (`isRunning` says which run) wait `gap` for the
    /// presenter's next run, then end; followers whose page left (not heard from for `followerTimeout`,
    /// or their watchers dropped) are dropped with their watchers; closed watchers are forgotten.
    func tick(isRunning: (String) -> Bool, now: ContinuousClock.Instant = .now) {
        // Labs and sessions are asked with no lock held.
        let (labIDs, watchers) = state.withLock { state in
            (state.codes.running.filter { $0.lab != nil }.map(\.labID), Array(state.watchers.values))
        }
        // Watchers first: one closed because its lab ended is then seen with its lab gone, not as a follower that left.
        let closed = Set(watchers.filter(\.isClosed).map(\.id))
        let goneLabs = Set(labIDs.filter { !isRunning($0) })
        let (news, dropped) = state.withLock { state -> ([LabPresentationNews], [ViewerSession]) in
            closed.forEach { state.watchers[$0] = nil }
            var news: [LabPresentationNews] = []
            var dropped: [ViewerSession] = []
            for var presentation in Array(state.codes.running) {
                if goneLabs.contains(presentation.labID), presentation.lab != nil {
                    Self.unplace(presentation, in: &state)
                    presentation.lab = nil
                    presentation.labGoneSince = now
                    presentation.position = nil
                    Self.place(presentation, in: &state)
                }
                if let since = presentation.labGoneSince, now - since >= Self.gap {
                    news.append(Self.end(presentation, in: &state))
                    continue
                }
                // Watchers of the running run all dropped: the page left (a run that ended closed its own).
                let left = presentation.followers.values.filter { follower in
                    now - follower.lastSeen >= Self.followerTimeout
                        || (presentation.lab != nil && follower.run == presentation.run && !follower.watchers.isEmpty
                            && follower.watchers.allSatisfy { $0.map { closed.contains($0.id) } ?? true })
                }
                guard !left.isEmpty else { continue }
                for follower in left {
                    presentation.followers[follower.key] = nil
                    dropped += follower.watchers.compactMap { $0 }
                }
                dropped.forEach { state.watchers[$0.id] = nil }
                state.codes[presentation.code] = presentation
                var told = LabPresentationNews()
                told.tellPresenter(of: presentation)
                news.append(told)
            }
            return (news, dropped)
        }
        dropped.forEach { viewers.remove($0.id)?.close() }
        news.forEach { $0.deliver() }
    }

    static func noFollower(_ code: FollowCode, ended: Bool) -> APIError {
        ended ? .notFound("this presentation has ended") : .notFound("no such follower of presentation \(code): follow the link again")
    }

    /// A watcher for each server lane of `lab` (nil for the browser lane), of `client` when named;
    /// each hears every row of its lane (the follower's page may be anywhere in it).
    private func watchers(of lab: Lab, client: String?) throws(APIError) -> [ViewerSession?] {
        var made: [ViewerSession?] = []
        do throws(APIError) {
            for lane in lab.lanes {
                guard let channel = lane.channel else { made.append(nil); continue }
                let watcher: ViewerSession
                if let client {
                    watcher = try viewers.create(in: channel, for: client)
                } else {
                    guard let created = viewers.create(in: channel) else { throw viewers.refusal }
                    watcher = created
                }
                _ = watcher.follow(0...max(0, lab.photos - 1), rowCount: lab.photos, margin: 0)
                made.append(watcher)
            }
        } catch {
            made.compactMap { $0 }.forEach { viewers.remove($0.id)?.close() }
            throw error
        }
        return made
    }
}

private extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
