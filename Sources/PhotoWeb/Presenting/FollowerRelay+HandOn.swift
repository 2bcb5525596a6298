import PhotoPipeline

extension FollowerRelay {
    /// What one hand-on gives each recipient: its news (its presenter's move first) and the rest (the
    /// rows' and operations' events, then the state of the rows a move brought near).
    struct Batches {
        var recipients: [(session: ViewerSession, news: [EventOutbox.Payload], rest: [EventOutbox.Payload])] = []
        /// Whether a recipient is moved to where its presenter stopped: then its news goes first, in
        /// a write of its own.
        var stops = false
    }

    /// Hands what was gathered on to `followers` (each follower's presenter in `presenters`), to those
    /// of the last hand-on that follow no more, and to those told something: each one batch, its news
    /// first, then its rows' and operations' events, then the state of the rows a move brought near.
    ///
    /// A stop's news goes in a write of its own, ahead of the rows, by the outbox's order
    /// (`enqueue(contentsOf:endingWrite:)`): each recipient's writer takes its news, writes it, and comes
    /// back for the rest after the other writers woken with it. A thousand followers' moves then reach
    /// them in the time their small writes take, not behind each other's rows (a stop's rows were 40
    /// events a follower; one write each made the last follower's move wait for them all: p99 140-206 ms
    /// against 79-82 ms, BENCHMARKS 32). Moves in a scroll, every 100 ms, keep one write each: two cost
    /// 40% more CPU for a thousand followers.
    func handOn(to followers: [ViewerSession], presenters: [ViewerID: ViewerID]) {
        let batches = batches(for: followers, presenters: presenters)
        for recipient in batches.recipients {
            if batches.stops, !recipient.news.isEmpty {
                recipient.session.outbox.enqueue(contentsOf: recipient.news, endingWrite: true)
                if !recipient.rest.isEmpty { recipient.session.outbox.enqueue(contentsOf: recipient.rest) }
            } else {
                let batch = recipient.news + recipient.rest
                if !batch.isEmpty { recipient.session.outbox.enqueue(contentsOf: batch) }
            }
        }
    }

    /// Takes what was gathered and makes each recipient's batch. A move's rows of interest are moved here.
    func batches(for followers: [ViewerSession], presenters: [ViewerID: ViewerID]) -> Batches {
        let taken = take(for: followers)
        var recipients = followers
        var seen = Set(followers.map(\.id))
        for session in taken.lastRecipients + taken.told.flatMap(\.followers) where seen.insert(session.id).inserted {
            recipients.append(session)
        }
        // Past the limit nothing is built: each recipient starts again from a snapshot.
        if taken.overflowed {
            recipients.forEach { $0.outbox.requireSnapshot() }
            return Batches()
        }
        // Each follower's news, in order, and its last move.
        let (news, moves) = Self.news(of: taken.told, moves: taken.moves, followers: followers, presenters: presenters)
        let arriving = Self.moveInterest(of: recipients, moves)
        let items = Self.folded(taken.items)
        // The rows' and operations' events as one presenter's followers see them, made once per presenter.
        var seenBy: [ViewerID?: [EventOutbox.Payload]] = [:]
        var batches = Batches(stops: moves.values.contains { $0.stop })
        batches.recipients.reserveCapacity(recipients.count)
        for follower in recipients {
            // One that follows no more is sent rows' states only: the forwarder may have sent it some
            // of these operations already, and a row's latest state twice is harmless.
            let presenter = presenters[follower.id]
            let events = seenBy[presenter] ?? Self.events(of: items, seenBy: presenter)
            seenBy[presenter] = events
            batches.recipients.append((follower, news[follower.id] ?? [], follower.wanted(events) + (arriving[follower.id] ?? [])))
        }
        return batches
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
