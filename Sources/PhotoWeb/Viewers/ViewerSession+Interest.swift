import PhotoPipeline

extension ViewerSession {
    /// Rows beyond each edge of a presenter's screen kept up to date for its followers: a follower
    /// does not scroll by itself (when it does, its own report widens its interest), and a thousand
    /// followers each sent the rows of `interestMargin` at every jump cost the presenter its own.
    static let followerMargin = 12

    /// Moves the rows of interest of `sessions` around `rows` (`margin` beyond each edge) and sends each the current state of the
    /// rows newly inside (it missed their updates while they were outside, or its snapshot did not
    /// cover them). The records are read, and each row's event encoded, once for all of them.
    static func moveInterest(of sessions: [ViewerSession], to rows: ClosedRange<Int>, margin: Int, on pipeline: PhotoPipeline) {
        let newcomers = sessions.compactMap { session in
            session.moveInterest(to: rows, margin: margin, rowCount: pipeline.entries.count).map { (session.id, $0) }
        }
        let arriving = arrivals(newcomers, on: pipeline)
        for session in sessions {
            if let batch = arriving[session.id] { session.outbox.enqueue(contentsOf: batch) }
        }
    }

    /// Moves this viewer's rows of interest around `rows` (clamped to the list of `rowCount` rows) and
    /// returns the rows newly inside, or nil when there are none.
    func moveInterest(to rows: ClosedRange<Int>, margin: Int, rowCount count: Int) -> [Int]? {
        guard count > 0 else { return nil }
        let indices = follow(min(rows.lowerBound, count - 1)...min(rows.upperBound, count - 1), rowCount: count, margin: margin)
        return indices.isEmpty ? nil : indices
    }

    /// The current state of each viewer's rows in `newcomers` (rows of `pipeline`), as events: the
    /// records are read in one go, and each row's event encoded once, shared by every viewer it goes to
    /// (a presenter's followers all move the same way).
    static func arrivals(_ newcomers: [(ViewerID, [Int])], on pipeline: PhotoPipeline) -> [ViewerID: [EventOutbox.Payload]] {
        guard let low = newcomers.compactMap({ $0.1.first }).min(), let high = newcomers.compactMap({ $0.1.last }).max() else { return [:] }
        let records = pipeline.records(in: low...high)
        var payloads = [Int: EventOutbox.Payload]()
        var arriving = [ViewerID: [EventOutbox.Payload]]()
        for (id, indices) in newcomers {
            arriving[id] = indices.map { index in
                if let payload = payloads[index] { return payload }
                let record = records[index - low]
                let payload = EventOutbox.Payload.photo(record.index, record.state, record: record)
                payloads[index] = payload
                return payload
            }
        }
        return arriving
    }
}
