import Foundation
import Hummingbird
import Logging
import PhotoPipeline
@testable import PhotoWeb
import Testing

/// Issue 37: a follower gets its presenter's move, the rows' events and the rows the move brought near
/// in one batch of its relay (one enqueue, one write of its stream), and a move is handed on at once.
@Suite("Follower relay batches")
struct FollowerRelayBatchTests {
    let viewers = TestViewers(maxViewers: 8, idleTimeout: .seconds(30))
    let presenter = ViewerID.random()

    func photo(_ index: Int, _ state: String) -> FollowerRelay.Item {
        .payload(.init(name: .photo, data: Data(#"{"index":\#(index),"state":"\#(state)"}"#.utf8), photoIndex: index))
    }

    func move(to first: Int, ended: Bool = false) -> EventOutbox.Payload {
        PresentationPayload(
            code: "code", role: .follower, followers: 1, first: first, last: first + 9, scrolling: false, ended: ended, coldStarts: 0
        ).event
    }

    /// A list of `count` photos nobody asks for: its rows' states are read, never loaded.
    func pipeline(_ count: Int) -> PhotoPipeline {
        PhotoPipeline(entries: (0..<count).map { PhotoEntry(name: "p\($0)", url: "http://127.0.0.1:1/p\($0).jpg") })
    }

    /// The events of the one item `outbox`'s stream `generation` has ready, as `name data` lines.
    func ready(_ outbox: EventOutbox, _ generation: Int) async -> [String] {
        guard case .events(let events)? = await outbox.next(generation: generation) else { return [] }
        return events.map { "\($0.name.rawValue) \(String(decoding: $0.data, as: UTF8.self))" }
    }

    @Test(.timeLimit(.minutes(1)))
    func aMoveAndTheRowsEventsReachAFollowerInOneWrite() async throws {
        // Given a follower whose stream's writer waits for events
        let follower = try #require(viewers.create())
        let generation = follower.outbox.attach(lastEventID: nil) { [] }
        let writes = BodyWrites()
        let writing = Task {
            var writer: any ResponseBodyWriter = RecordingBodyWriter(writes: writes)
            try await ServerSentEventStream(outbox: follower.outbox, generation: generation, retry: .seconds(1), meter: ServerMetrics().ownStreams).write(to: &writer)
        }

        // When the relay gathered three updates of two rows and is told of a move, then hands on
        let relay = FollowerRelay(pace: .seconds(3_600))
        [photo(3, "downloading"), photo(4, "filtered"), photo(3, "filtered")].forEach(relay.add)
        relay.tell(.init(followers: [follower], payload: move(to: 3)), now: false)
        relay.handOn(to: [follower], presenters: [follower.id: presenter])

        // Then after the retry line one write carries the move first, then each row's latest state
        let body = try #require(await writes.first(2).last)
        follower.outbox.close()
        try await writing.value
        #expect(writes.all.count == 2, "one write for the move and the rows: \(writes.all)")
        let names = body.components(separatedBy: "\n").filter { $0.hasPrefix("event: ") }
        #expect(names == ["event: presentation", "event: photo", "event: photo"])
        #expect(body.contains(#""first":3"#) && !body.contains("downloading"))
    }

    @Test(.timeLimit(.minutes(1)))
    func aMoveBringsTheRowsNearItAfterTheRowsEventsAndOnlyToThoseStillFollowing() async throws {
        // Given two followers told of a move to rows 50-59 of a list of 100, one of which broke away
        // (its own report put its rows at the top) before the hand-on
        let list = pipeline(100)
        let following = try #require(viewers.create())
        let gone = try #require(viewers.create())
        _ = gone.follow(0...9, rowCount: 100, margin: 12)
        let generations = [following, gone].map { $0.outbox.attach(lastEventID: nil) { [] } }
        let relay = FollowerRelay(pace: .seconds(3_600))
        relay.add(photo(55, "filtered"))
        relay.tell(.init(followers: [following, gone], payload: move(to: 50), rows: 50...59, pipeline: list), now: false)

        // When the relay hands on with only the first following
        relay.handOn(to: [following], presenters: [following.id: presenter])

        // Then the first gets the move, then rows 38-71 (the presenter's and 12 beyond each edge),
        // each with its name, in one batch: the row's gathered event went before its state read at the
        // hand-on, which replaced it (the fresher); the other is sent nothing and keeps its rows
        let events = await ready(following.outbox, generations[0])
        #expect(events.first?.hasPrefix("presentation ") == true)
        let arrived = events.dropFirst()
        #expect(arrived.count == 34)
        #expect(arrived.first?.contains(#""index":38"#) == true && arrived.last?.contains(#""index":71"#) == true)
        #expect(arrived.allSatisfy { $0.contains(#""name":"p"#) && !$0.contains("filtered") })
        #expect(gone.outbox.pendingCount == 0)
        #expect(gone.wants(5) && !gone.wants(55))
    }

    @Test(.timeLimit(.minutes(1)))
    func aStopsNewsIsWrittenAloneBeforeItsRowsAndTheyFollowInOrder() async throws {
        // Given a follower whose stream nobody reads yet, and a move to rows 50-59 of a list of 100
        let list = pipeline(100)
        let follower = try #require(viewers.create())
        let generation = follower.outbox.attach(lastEventID: nil) { [] }
        let relay = FollowerRelay(pace: .seconds(3_600))
        relay.add(photo(55, "filtered"))
        relay.tell(.init(followers: [follower], payload: move(to: 50), rows: 50...59, pipeline: list, stop: true), now: false)

        // When the relay hands on
        relay.handOn(to: [follower], presenters: [follower.id: presenter])

        // Then the follower's stream writes the move on its own, then the rows near it, in order
        var events = await ready(follower.outbox, generation)
        #expect(events.count == 1 && events.first?.hasPrefix("presentation ") == true, "the move alone first: \(events)")
        while events.count < 35 {
            let more = await ready(follower.outbox, generation)
            #expect(!more.isEmpty)
            if more.isEmpty { break }
            events += more
        }
        #expect(events.first?.hasPrefix("presentation ") == true)
        #expect(events.count == 35 && events.dropFirst().allSatisfy { $0.hasPrefix("photo ") })
        #expect(events.dropFirst().first?.contains(#""index":38"#) == true && events.last?.contains(#""index":71"#) == true)
    }

    @Test(.timeLimit(.minutes(1)))
    func theEndReachesFollowersThatFollowNoMore() async throws {
        // Given a presentation that ended: its follower is no longer in the relay's audience
        let follower = try #require(viewers.create())
        let generation = follower.outbox.attach(lastEventID: nil) { [] }
        let relay = FollowerRelay(pace: .seconds(3_600))
        relay.tell(.init(followers: [follower], payload: move(to: 20, ended: true), whileFollowing: false), now: false)

        // When the relay hands on to nobody following
        relay.handOn(to: [], presenters: [:])

        // Then the follower is told that it ended
        let events = await ready(follower.outbox, generation)
        #expect(events.count == 1 && events.first?.contains(#""ended":true"#) == true)
    }

    @Test(.timeLimit(.minutes(1)))
    func aMoveIsHandedOnAtOnceNotAtThePacesEnd() async throws {
        // Given a relay running with a pace of an hour, and a follower
        let follower = try #require(viewers.create())
        let generation = follower.outbox.attach(lastEventID: nil) { [] }
        let relay = FollowerRelay(pace: .seconds(3_600))
        let presenter = presenter
        let running = Task { await relay.run { ([follower], [follower.id: presenter]) } }
        defer { running.cancel() }

        // When it is told of a move to be sent now
        relay.tell(.init(followers: [follower], payload: move(to: 7)), now: true)

        // Then the follower has it long before the pace ends (the test's limit is a minute)
        let events = await ready(follower.outbox, generation)
        #expect(events.first?.contains(#""first":7"#) == true)
    }

    @Test(.timeLimit(.minutes(1)))
    func newsThatCanWaitIsHandedOnAtThePace() async throws {
        // Given a relay running with a pace of 20 ms, and a follower
        let follower = try #require(viewers.create())
        let generation = follower.outbox.attach(lastEventID: nil) { [] }
        let relay = FollowerRelay(pace: .milliseconds(20))
        let presenter = presenter
        let running = Task { await relay.run { ([follower], [follower.id: presenter]) } }

        // When it is told of the presenter's queues, not now
        relay.tell(.init(followers: [follower], payload: .init(name: .queues, data: Data("{}".utf8))), now: false)

        // Then the follower has them at a pace's end, and the relay stops when cancelled
        let events = await ready(follower.outbox, generation)
        #expect(events.first?.hasPrefix("queues ") == true)
        running.cancel()
        await running.value
    }

    @Test func thePaceGrowsWithTheAudience() {
        // A hand-on is a write per follower: a thousand are handed on less often than ten
        let relay = FollowerRelay(pace: .milliseconds(40), pacePerFollower: .microseconds(250))
        #expect(relay.pace(for: 0) == .milliseconds(40))
        #expect(relay.pace(for: 100) == .milliseconds(40))
        #expect(relay.pace(for: 1_000) == .milliseconds(250))
    }

    @Test(.timeLimit(.minutes(1)))
    func theTotalsReachAFollowerWithItsRelaysBatchAndOthersAtOnce() async throws {
        // Given a list channel with a presenter and one follower, both with streams
        let registry = ViewerRegistry(maxViewers: 8)
        let presentations = Presentations()
        let channel = PhotoChannel(
            library: PhotoLibrary(), viewers: registry, settings: .init(heartbeat: .seconds(15), idleTimeout: .seconds(30), connectTimeout: .seconds(30)),
            totals: ServerTotals(cluster: nil, unsent: nil), presentations: presentations, logger: Logger(label: "test"))
        let presenter = try #require(registry.create(in: channel))
        let follower = try #require(registry.create(in: channel))
        let (code, _) = try presentations.start(by: presenter)
        _ = try presentations.follow(code, by: follower)
        let generations = [presenter, follower].map { $0.outbox.attach(lastEventID: nil) { [] } }

        // When the channel's totals are sent to both
        channel.sendToAll(.init(name: .stats, data: Data(#"{"viewers":2}"#.utf8)), [presenter, follower])

        // Then the presenter has them now; the follower with the relay's next hand-on
        #expect(presenter.outbox.pendingCount == 1)
        #expect(follower.outbox.pendingCount == 0)
        let relay = try #require(channel.followerRelay)
        relay.handOn(to: [follower], presenters: presentations.presenterOfFollowers())
        let events = await ready(follower.outbox, generations[1])
        #expect(events == [#"stats {"viewers":2}"#])
    }
}
