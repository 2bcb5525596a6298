import PhotoPipeline

extension FollowerRelay {
    /// Hands what was gathered on to `followers` (each follower's presenter in `presenters`), to those
    /// of the last hand-on that follow no more, and to those told something: each one batch, in one
    /// enqueue (one write of its stream), its news first, then its rows' and operations' events,
    /// then the state of the rows a move brought near it.
    func handOn(to followers: [ViewerSession], presenters: [ViewerID: ViewerID]) {
        let taken = take(for: followers)
        var recipients = followers
        var seen = Set(followers.map(\.id))
        for session in taken.lastRecipients + taken.told.flatMap(\.followers) where seen.insert(session.id).inserted {
            recipients.append(session)
        }
        // Each follower's news, in order, and its last move.
        var news: [ViewerID: [EventOutbox.Payload]] = [:]
        var moves: [ViewerID: Told] = [:]
        for told in taken.told {
            for follower in told.followers where !told.whileFollowing || presenters[follower.id] != nil {
                news[follower.id, default: []].append(told.payload)
                if told.rows != nil { moves[follower.id] = told }
            }
        }
        let arriving = Self.moveInterest(of: recipients, moves)
        if taken.overflowed {
            recipients.forEach { $0.outbox.requireSnapshot() }
            return
        }
        let items = Self.folded(taken.items)
        // The rows' and operations' events as one presenter's followers see them, made once per presenter.
        var seenBy: [ViewerID?: [EventOutbox.Payload]] = [:]
        for follower in recipients {
            // One that follows no more is sent rows' states only: the forwarder may have sent it some
            // of these operations already, and a row's latest state twice is harmless.
            let presenter = presenters[follower.id]
            let events = seenBy[presenter] ?? Self.events(of: items, seenBy: presenter)
            seenBy[presenter] = events
            let batch = (news[follower.id] ?? []) + follower.wanted(events) + (arriving[follower.id] ?? [])
            if !batch.isEmpty { follower.outbox.enqueue(contentsOf: batch) }
        }
    }

    /// `items` as the followers of `presenter` are sent them (its operations `mine`); for a
    /// recipient that follows nobody, the rows' states only.
    static func events(of items: [Item], seenBy presenter: ViewerID?) -> [EventOutbox.Payload] {
        items.compactMap { item in
            switch item {
            case .payload(let payload): payload
            case .operation(let others, let own, let viewers): presenter.map { viewers.contains($0) ? own : others }
            }
        }
    }

    /// Moves each of `sessions` that has a move in `moves` to its rows, and returns for each the
    /// current state of the rows newly inside (it missed their updates while they were outside).
    /// The records are read, and each row's event encoded, once per pipeline for all of them.
    static func moveInterest(of sessions: [ViewerSession], _ moves: [ViewerID: Told]) -> [ViewerID: [EventOutbox.Payload]] {
        var newcomers: [ObjectIdentifier: (pipeline: PhotoPipeline, rows: [(ViewerID, [Int])])] = [:]
        for session in sessions {
            guard let move = moves[session.id], let rows = move.rows, let pipeline = move.pipeline,
                  let indices = session.moveInterest(to: rows, margin: ViewerSession.followerMargin, rowCount: pipeline.entries.count)
            else { continue }
            newcomers[ObjectIdentifier(pipeline), default: (pipeline, [])].rows.append((session.id, indices))
        }
        // One pipeline per channel, so one read; grouped all the same.
        return newcomers.values.reduce(into: [:]) { arriving, group in
            arriving.merge(ViewerSession.arrivals(group.rows, on: group.pipeline)) { first, _ in first }
        }
    }
}
