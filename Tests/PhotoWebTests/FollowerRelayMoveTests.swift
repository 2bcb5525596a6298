import Foundation
import Locking
import PhotoPipeline
@testable import PhotoWeb
import Testing

/// Issue 57: a presenter's moves wait for the relay's next hand-on, each replacing the one before, and
/// the audience gets at most one batch a move pace, however fast the presenter reports.
@Suite("Follower relay moves")
struct FollowerRelayMoveTests {
    let viewers = TestViewers(maxViewers: 8, idleTimeout: .seconds(30))
    let presenter = ViewerID.random()

    func move(to first: Int) -> FollowerRelay.Move {
        let payload = PresentationPayload(
            code: "code", role: .follower, followers: 1, first: first, last: first + 9, scrolling: true, ended: false, coldStarts: 0
        ).event
        return .init(presenter: presenter, payload: payload, rows: first...(first + 9), pipeline: nil, stop: false)
    }

    func ready(_ outbox: EventOutbox, _ generation: Int) async -> [String] {
        guard case .events(let events)? = await outbox.next(generation: generation) else { return [] }
        return events.map { "\($0.name.rawValue) \(String(decoding: $0.data, as: UTF8.self))" }
    }

    @Test(.timeLimit(.minutes(1)))
    func aPresentersMovesBeforeAHandOnReachItsFollowersAsTheLatestOnly() async throws {
        // Given two followers of the presenter and one of another presenter
        let followers = try (0..<2).map { _ in try #require(viewers.create()) }
        let other = try #require(viewers.create())
        let generations = (followers + [other]).map { $0.outbox.attach(lastEventID: nil) { [] } }
        let relay = FollowerRelay(pace: .seconds(3_600))

        // When the presenter reports a thousand moves before the hand-on
        for first in 0..<1_000 { relay.move(move(to: first)) }
        var presenters = Dictionary(uniqueKeysWithValues: followers.map { ($0.id, presenter) })
        presenters[other.id] = ViewerID.random()
        relay.handOn(to: followers + [other], presenters: presenters)

        // Then each of its followers gets one move, the last; the other follower none
        for (follower, generation) in zip(followers, generations) {
            let events = await ready(follower.outbox, generation)
            #expect(events.count == 1, "\(events)")
            #expect(events.first?.contains(#""first":999"#) == true)
        }
        #expect(other.outbox.pendingCount == 0)
        // And nothing waits for the next hand-on
        #expect(relay.take(for: []).moves.isEmpty)
    }

    @Test(.timeLimit(.minutes(1)))
    func movesAsFastAsTheyComeMakeAtMostOneHandOnAMovePace() async throws {
        // Given a relay running with a move pace of 50 ms, counting its hand-ons
        let relay = FollowerRelay(pace: .seconds(3_600), pacePerFollower: .zero, leastMovePace: .milliseconds(50))
        let handOns = Locked(0)
        let running = Task { await relay.run { handOns.withLock { $0 += 1 }; return ([], [:]) } }

        // When a presenter's moves come without a pause for 500 ms
        let clock = ContinuousClock()
        let start = clock.now
        var moves = 0
        while clock.now - start < .milliseconds(500) {
            relay.move(move(to: moves % 100))
            moves += 1
            await Task.yield()
        }
        running.cancel()
        await running.value
        let elapsed = clock.now - start

        // Then the relay handed on at most once a move pace
        let count = handOns.withLock { $0 }
        let most = Int(elapsed / .milliseconds(50)) + 1
        #expect(count <= most, "\(moves) moves, \(count) hand-ons in \(elapsed)")
    }

    @Test func theMovePaceGrowsWithTheAudience() {
        let relay = FollowerRelay(pace: .milliseconds(40))
        #expect(relay.movePace(for: 10) == .milliseconds(40))
        #expect(relay.movePace(for: 1_000) == .milliseconds(250))
    }

    @Test func anOverflowedPaceBuildsNoBatchAndAsksEachRecipientForASnapshot() async throws {
        // Given a relay whose pace overflowed, with a follower told news
        let follower = try #require(viewers.create())
        _ = follower.outbox.attach(lastEventID: nil) { [] }
        let relay = FollowerRelay(pace: .seconds(3_600), limit: 10)
        for first in 0..<20 {
            relay.tell(.init(followers: [follower], payload: move(to: first).payload), now: false)
        }

        // When its batches are made
        let batches = relay.batches(for: [follower], presenters: [follower.id: presenter])

        // Then none is: the follower starts again from a snapshot
        #expect(batches.recipients.isEmpty)
        #expect(follower.outbox.pendingCount == 0)
    }
}
