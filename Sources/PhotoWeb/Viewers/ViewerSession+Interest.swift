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
        let count = pipeline.entries.count
        guard count > 0 else { return }
        let rows = min(rows.lowerBound, count - 1)...min(rows.upperBound, count - 1)
        let newcomers = sessions.map { ($0, $0.follow(rows, rowCount: count, margin: margin)) }.filter { !$0.1.isEmpty }
        guard let low = newcomers.compactMap({ $0.1.first }).min(), let high = newcomers.compactMap({ $0.1.last }).max() else { return }
        let records = pipeline.records(in: low...high)
        // Each row's event encoded once, shared by every session it goes to (a presenter's followers
        // all move the same way).
        var payloads = [Int: EventOutbox.Payload]()
        for (session, indices) in newcomers {
            let batch = indices.map { index in
                let payload = payloads[index] ?? {
                    let record = records[index - low]
                    return .photo(record.index, record.state, record: record)
                }()
                payloads[index] = payload
                return payload
            }
            session.outbox.enqueue(contentsOf: batch)
        }
    }
}
